import type { UsageRecord, UsageUnits } from './usage-record.ts';

/** What a finished task row tells about the call that submitted it. */
export interface FinishedTask {
  readonly kind: string;
  readonly ownerKeyId: string;
  readonly model: string;
  readonly requestId: string;
}

/** The endpoint each task kind is submitted through (the effects-video agent submits `video` tasks too). */
const taskEndpoints: Readonly<Record<string, string>> = {
  image: 'async.images.generations',
  video: 'videos.generations',
};

/**
 * The usage of a task that has just SUCCEEDED, counted from its stored result (the media task
 * handlers' `{images: [...]}` and `{videos: [...]}`), charged to the key that owns the task.
 * Called once per task: by the worker whose fenced SUCCESS write went through, so a task run
 * twice (its first worker died) is still counted once. Undefined for kinds that are not media.
 */
export function taskUsage(task: FinishedTask, result: unknown, now: number = Date.now()): UsageRecord | undefined {
  const endpoint = taskEndpoints[task.kind];
  if (endpoint === undefined) return undefined;
  const units: UsageUnits = task.kind === 'image' ? { images: countOf(result, 'images') } : { videos: countOf(result, 'videos') };
  return {
    keyId: task.ownerKeyId,
    model: task.model,
    endpoint,
    requestId: task.requestId,
    promptTokens: 0,
    completionTokens: 0,
    cachedTokens: 0,
    units,
    createdAt: now,
  };
}

function countOf(result: unknown, field: 'images' | 'videos'): number {
  if (typeof result !== 'object' || result === null) return 0;
  const items = (result as Record<string, unknown>)[field];
  return Array.isArray(items) ? items.length : 0;
}
