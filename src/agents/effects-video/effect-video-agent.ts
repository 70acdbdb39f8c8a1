import { randomUUID } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { maxVideoImageBytes, maxVideoPromptLength } from '../../core/media/video-input-limits.ts';
import { readVideoImage } from '../../tools/media/video-input-image.ts';
import { ApiError, invalidField } from '../../core/errors/api-error.ts';
import type { CatalogEntry } from '../../core/config/config.schema.ts';
import { modelSettingsOf } from '../../core/config/model-deployments.ts';
import type { StoredInputImage, VideoJob } from '../../core/media/generate-video.ts';
import { extensionOf } from '../../core/media/media-blobs.ts';
import { defaultVideoTimeoutMs, taskDeadlineMarginMs } from '../../core/media/media-timeouts.ts';
import { videoTaskResult } from '../../core/media/media-task-data.ts';
import { StoredTaskData } from '../../core/tasks/stored-task-data.ts';
import type { TaskRecord } from '../../core/tasks/task.ts';
import { GuardedFetcher } from '../../tools/fetch/guarded-fetcher.ts';
import { SsrfGuard } from '../../tools/fetch/ssrf-guard.ts';
import { agentVideoModel } from '../configured-model.ts';
import type { Agent, AgentEvent, AgentInput, AgentServices, AsyncAgentResult } from '../agent.ts';
import { effectTemplates, isEffectTemplateName, type EffectTemplateName } from './effect-templates.ts';
import { readEffectVideoInput } from './effect-video-input.ts';

const agentId = 'vidu_template_agent';

/**
 * The `video` task request the agent submits: the VideoJob the video task handler runs, marked
 * with the agent and the effect, so /v1/agents/async-result answers only for this agent's tasks
 * (a plain POST /videos/generations task is not an agent result).
 */
interface EffectVideoJob extends VideoJob {
  readonly agent: typeof agentId;
  readonly template: EffectTemplateName;
}

/** The mark that makes a stored video task this agent's. */
const agentTaskRequest = new StoredTaskData('request', Type.Object({ agent: Type.Literal(agentId) }));

/**
 * The agent with the origin its download URLs need: `asyncResult(owner, id, origin)`, where
 * origin is the one the client reached the server at (the async-result route's requestOrigin).
 */
export interface EffectVideoAgent extends Agent {
  asyncResult(ownerKeyId: string, asyncId: string, origin?: string): Promise<AsyncAgentResult | undefined>;
}

/**
 * vidu_template_agent: animates the user's photo with a chosen effect. A run checks the photo,
 * stores it and submits a `video` task to the task engine (the same kind, handler and engines
 * as POST /videos/generations), answering at once with status pending and the task id as
 * async_id; `asyncResult` reads the task back as pending, success (video URL) or failed.
 */
export function createEffectVideoAgent(services: AgentServices): EffectVideoAgent {
  const guard = new SsrfGuard({ allow: services.config.fetch?.allow ?? [] });

  async function* run(input: AgentInput): AsyncIterable<AgentEvent> {
    const model = agentVideoModel(services.config, agentId, 'cogvideox-3');
    const template = readTemplate(input.variables['template']);
    const { image, text } = readEffectVideoInput(input.messages);
    const prompt = effectPrompt(template, text);
    // Refuse now when no engine serves the model, before the photo is fetched or stored.
    services.backends.capability(model, 'video');
    const fetcher = new GuardedFetcher({ guard, maxBytes: maxVideoImageBytes, userAgent: 'model-platform (effect video photo)' });
    const photo = await readVideoImage(image, fetcher, input.signal).finally(() => fetcher.close());
    // The task row keeps a blob key, not megabytes of base64; the video handler reads the bytes back.
    const stored: StoredInputImage = { key: `video-inputs/${randomUUID()}/0.${extensionOf(photo.contentType)}`, contentType: photo.contentType };
    await services.blobs.put(stored.key, photo.bytes, photo.contentType);
    let task: TaskRecord;
    try {
      task = await services.tasks.submit({
        kind: 'video',
        ownerKeyId: input.ownerKeyId,
        model,
        requestId: input.requestId,
        request: effectVideoJob(model, template, prompt, stored),
        timeoutMs: (modelTimeoutMs(services.config.models?.[model]) ?? defaultVideoTimeoutMs) + taskDeadlineMarginMs,
      });
    } catch (error) {
      await services.blobs.delete(stored.key).catch(() => undefined);
      throw error;
    }
    yield { kind: 'done', finishReason: 'stop', usage: { promptTokens: 0, completionTokens: 0, calls: 1 }, asyncId: task.id, status: 'pending' };
  }

  async function asyncResult(ownerKeyId: string, asyncId: string, origin?: string): Promise<AsyncAgentResult | undefined> {
    const task = await services.tasks.get(asyncId, ownerKeyId);
    if (task === undefined || task.kind !== 'video' || !agentTaskRequest.matches(task)) return undefined;
    switch (task.status) {
      case 'PROCESSING':
        return { status: 'pending' };
      case 'FAIL':
        return { status: 'failed', error: task.error ?? { code: '500', message: `The effect video task '${task.id}' failed.` } };
      case 'SUCCESS': {
        // Download URLs are absolute: they need the origin the client reached this server at.
        if (origin === undefined) throw new ApiError('500', `The effect video '${task.id}' needs the request's origin to give its download URL.`);
        const video = readStoredVideo(task);
        return {
          status: 'success',
          videoUrl: await services.blobs.downloadUrl(video.key, origin),
          coverUrl: await services.blobs.downloadUrl(video.coverKey, origin),
        };
      }
    }
  }

  return { run, asyncResult };
}

/** The route validated custom_variables already; this guards direct callers and a drifting schema. */
function readTemplate(template: unknown): EffectTemplateName {
  if (template === undefined) throw new ApiError('1213', "Missing required parameter: 'custom_variables.template'.");
  if (!isEffectTemplateName(template)) {
    throw invalidField('custom_variables.template', `must be one of ${Object.keys(effectTemplates).join(', ')}`);
  }
  return template;
}

/** The effect's prompt with the user's words after it, within the video prompt's 512 characters. */
function effectPrompt(template: EffectTemplateName, text: string | undefined): string {
  const base = effectTemplates[template].prompt;
  if (text === undefined) return base;
  const prompt = `${base} ${text}`;
  if (prompt.length > maxVideoPromptLength) {
    const room = maxVideoPromptLength - base.length - 1;
    throw invalidField('messages', `the text is ${text.length} characters; with the '${template}' effect at most ${room} fit in the video prompt`);
  }
  return prompt;
}

function effectVideoJob(model: string, template: EffectTemplateName, prompt: string, image: StoredInputImage): EffectVideoJob {
  const settings = effectTemplates[template];
  return {
    agent: agentId,
    template,
    model,
    prompt,
    images: [image],
    quality: settings.quality,
    withAudio: false,
    size: undefined,
    fps: settings.fps,
    durationSeconds: settings.durationSeconds,
  };
}

/** The one video the video task handler stored. */
function readStoredVideo(task: TaskRecord): { key: string; coverKey: string } {
  const video = videoTaskResult.read(task).videos[0];
  if (video === undefined) throw new ApiError('500', `The stored result of effect video task '${task.id}' holds no video.`);
  return video;
}

/** The model's longest engine timeout (of any deployment), when the config file sets one. */
function modelTimeoutMs(entry: CatalogEntry | undefined): number | undefined {
  return entry === undefined ? undefined : modelSettingsOf(entry).timeoutMs;
}
