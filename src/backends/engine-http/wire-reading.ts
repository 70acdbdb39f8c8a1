import { randomBytes } from 'node:crypto';
import type { ChatUsage, FinishReason } from '../../core/chat/chat-types.ts';

/**
 * Lenient readers for the OpenAI chat wire format as engines really send it: fields may be
 * missing, null, or of a neighbouring type (an object where a JSON string is due); only what the
 * platform uses is read.
 */
export type WireRecord = Readonly<Record<string, unknown>>;

export function asRecord(value: unknown): WireRecord | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as WireRecord) : undefined;
}

export function asArray(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : [];
}

export function asString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export function asCount(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? Math.round(value) : 0;
}

/** `record.a.b.c`, or undefined as soon as a step is not an object. */
export function pathOf(value: unknown, ...keys: readonly string[]): unknown {
  let current: unknown = value;
  for (const key of keys) current = asRecord(current)?.[key];
  return current;
}

/** Reasoning text: vLLM and SGLang say `reasoning_content`, Ollama, LM Studio and newer vLLM say `reasoning`. */
export function reasoningOf(message: WireRecord | undefined): string {
  return asString(message?.['reasoning_content']) || asString(message?.['reasoning']) || '';
}

/** Tool call arguments are a JSON string on the platform; some engines send the object itself. */
export function argumentsText(value: unknown): string {
  if (typeof value === 'string') return value;
  return value === undefined || value === null ? '' : JSON.stringify(value);
}

/** An id for a tool call an engine sent without one (clients need one to answer the call). */
export function newToolCallId(): string {
  return `call_${randomBytes(12).toString('hex')}`;
}

/** Engine usage; an engine that reports none counts as 0, never as an estimate. */
export function readUsage(value: unknown): ChatUsage {
  const usage = asRecord(value);
  return {
    promptTokens: asCount(usage?.['prompt_tokens']),
    completionTokens: asCount(usage?.['completion_tokens']),
    cachedTokens: asCount(pathOf(usage, 'prompt_tokens_details', 'cached_tokens')),
  };
}

const platformReasons: readonly string[] = ['stop', 'length', 'tool_calls', 'sensitive', 'model_context_window_exceeded', 'network_error'];

/** The engine's finish_reason in platform words; an engine that made tool calls finished for them. */
export function finishReasonOf(engineReason: string | undefined, madeToolCalls: boolean): FinishReason {
  if (madeToolCalls && (engineReason === undefined || engineReason === 'stop')) return 'tool_calls';
  if (engineReason === 'content_filter') return 'sensitive';
  if (engineReason === 'function_call') return 'tool_calls';
  if (engineReason !== undefined && platformReasons.includes(engineReason)) return engineReason as FinishReason;
  return 'stop';
}
