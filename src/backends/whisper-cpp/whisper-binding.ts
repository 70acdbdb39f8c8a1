import { createRequire } from 'node:module';

/** A running transcription: `promise` settles only on success (see WhisperTranscriber), `stop` asks whisper.cpp to give up. */
export interface WhisperJob {
  readonly stop: () => Promise<void>;
  readonly promise: Promise<{ readonly result: string }>;
}

export interface WhisperContext {
  transcribeFile(path: string, options: { readonly maxThreads: number; readonly language?: string; readonly prompt?: string }): WhisperJob;
  release(): Promise<void>;
}

interface WhisperBinding {
  initWhisper(options: { readonly filePath: string; readonly useGpu: boolean }): Promise<WhisperContext>;
}

/**
 * @fugood/whisper.node, loaded through require: the package ships its TypeScript sources without
 * declaration files, and those sources do not compile under this project's settings, so the part
 * of its API the platform uses is declared here.
 */
export function initWhisper(options: { readonly filePath: string; readonly useGpu: boolean }): Promise<WhisperContext> {
  const binding = createRequire(import.meta.url)('@fugood/whisper.node') as WhisperBinding;
  return binding.initWhisper(options);
}
