import { Type } from '@sinclair/typebox';
import { modelSettings } from '../../core/config/config.schema.ts';

/**
 * Settings of the engines reached over HTTP, defined once for every engine settings schema that
 * takes them; each schema says whether a setting is required or optional for its kind.
 */
export const httpEngineSettings = {
  baseUrl: Type.String({ pattern: '^https?://', description: 'Engine address (http or https).' }),
  apiKey: Type.String({ minLength: 1, description: 'Sent to the engine as `Authorization: Bearer`.' }),
  upstreamModel: Type.String({ minLength: 1, description: 'Model name the engine knows (default: the public model name).' }),
  maxResponseBytes: Type.Integer({
    minimum: 1024,
    description:
      'Most bytes of one answer read whole, or of an error body (default 33554432, 32 MiB); more fails that call. Raise it for image models that answer several large b64_json images.',
  }),
  pollIntervalMs: Type.Integer({ minimum: 10, description: 'How often a running image or video generation is asked for its result.' }),
};

/**
 * The settings every OpenAI-compatible server kind takes (chat, images, transcription, GLM-OCR's
 * vision server): where it is, how to sign in, the model's name there, and the call limits.
 */
export const openAiServerSettings = {
  baseUrl: httpEngineSettings.baseUrl,
  apiKey: Type.Optional(httpEngineSettings.apiKey),
  upstreamModel: Type.Optional(httpEngineSettings.upstreamModel),
  timeoutMs: Type.Optional(modelSettings.timeoutMs),
  maxResponseBytes: Type.Optional(httpEngineSettings.maxResponseBytes),
  maxConcurrency: Type.Optional(modelSettings.maxConcurrency),
};

/** paddle-ocr and glm-ocr take it alike: glm-ocr's page layout comes from the same PaddleOCR pipeline. */
export const classifyDirectionSetting = Type.Boolean({
  description: "Run PaddleOCR's direction classifier, so pages that lie upside down read right (default false: about 0.3 s a page).",
});
