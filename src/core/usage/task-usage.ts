import { isStoredChatResult } from '../chat/chat-task-data.ts';
import type { UsageRecord, UsageUnits } from './usage-record.ts';

/** What a finished task row tells about the call that submitted it. */
export interface FinishedTask {
  readonly kind: string;
  readonly ownerKeyId: string;
  readonly model: string;
  readonly requestId: string;
}

/** The endpoint each task kind is submitted through (the effects-video agent submits `video` tasks too). */
const taskEndpoints: ReadonlyMap<string, string> = new Map([
  ['image', 'async.images.generations'],
  ['video', 'videos.generations'],
  ['chat', 'async.chat.completions'],
]);

/**
 * The usage of a task that has just SUCCEEDED, counted from its stored result (the media task
 * handlers' `{images: [...]}` and `{videos: [...]}`; the chat task's tokens and searches),
 * charged to the key that owns the task. Called once per task: by the worker whose fenced
 * SUCCESS write went through, so a task run twice (its first worker died) is still counted once.
 * Undefined for kinds that record no usage.
 */
export function taskUsage(task: FinishedTask, result: unknown, now: number = Date.now()): UsageRecord | undefined {
  const endpoint = taskEndpoints.get(task.kind);
  if (endpoint === undefined) return undefined;
  const record = { keyId: task.ownerKeyId, model: task.model, endpoint, requestId: task.requestId, createdAt: now };
  if (task.kind === 'chat') {
    // The chat handler's own result; one that did not match would count nothing rather than guess.
    const { usage, searches } = isStoredChatResult(result) ? result : { usage: { promptTokens: 0, completionTokens: 0, cachedTokens: 0 }, searches: 0 };
    return { ...record, ...usage, ...(searches === 0 ? {} : { units: { searches } }) };
  }
  const units: UsageUnits = task.kind === 'image' ? { images: countOf(result, 'images') } : { videos: countOf(result, 'videos') };
  return { ...record, promptTokens: 0, completionTokens: 0, cachedTokens: 0, units };
}

function countOf(result: unknown, field: 'images' | 'videos'): number {
  if (typeof result !== 'object' || result === null) return 0;
  const items = (result as Record<string, unknown>)[field];
  return Array.isArray(items) ? items.length : 0;
}
