/** Why generation ended (docs/wire.md §3.2). */
export type FinishReason = 'stop' | 'tool_calls' | 'length' | 'sensitive' | 'model_context_window_exceeded' | 'network_error';

type ReasoningEffort = 'max' | 'xhigh' | 'high' | 'medium' | 'low' | 'minimal' | 'none';

/** A media reference: an http(s) URL or a data URL (bare base64 is turned into a data URL on the way in). */
export interface MediaPart {
  readonly type: 'image_url' | 'video_url' | 'file_url' | 'input_audio';
  readonly url: string;
}

interface TextPart {
  readonly type: 'text';
  readonly text: string;
}

export type ContentPart = TextPart | MediaPart;

export interface ToolCall {
  readonly id: string;
  readonly name: string;
  /** Always a JSON string (docs/wire.md §3.3). */
  readonly arguments: string;
}

/** A conversation turn as engines receive it (reasoning of earlier turns already dropped unless kept). */
export interface ChatMessage {
  readonly role: 'system' | 'user' | 'assistant' | 'tool';
  readonly content: string | readonly ContentPart[] | null;
  readonly reasoningContent?: string;
  readonly toolCalls?: readonly ToolCall[];
  readonly toolCallId?: string;
  readonly name?: string;
}

export interface FunctionTool {
  readonly name: string;
  readonly description?: string;
  /** JSON Schema of the arguments; absent when there are none. */
  readonly parameters?: Readonly<Record<string, unknown>>;
}

/** One chat call, with the platform's defaults applied and its rules already checked. */
export interface ChatRequest {
  /** The public model name (what the response reports). */
  readonly model: string;
  readonly messages: readonly ChatMessage[];
  readonly tools: readonly FunctionTool[];
  /** Sampling; `greedy` (do_sample false) makes temperature and topP irrelevant. */
  readonly temperature: number | undefined;
  readonly topP: number | undefined;
  readonly greedy: boolean;
  /** The client's max_tokens; undefined lets the engine run to `maxTokensLimit` or its context end. */
  readonly maxTokens: number | undefined;
  /** The model's output cap the platform documents (undefined for an operator's own model). */
  readonly maxTokensLimit: number | undefined;
  readonly stop: readonly string[];
  readonly responseFormat: 'text' | 'json_object';
  readonly thinking: { readonly enabled: boolean; readonly effort: ReasoningEffort | undefined };
  readonly seed: number | undefined;
  /** Aborted when the client goes away; every engine call must stop then. */
  readonly signal: AbortSignal;
}

export interface ChatUsage {
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly cachedTokens: number;
}

/** A finished, non-streamed answer. */
export interface ChatResult {
  readonly content: string;
  readonly reasoningContent: string;
  readonly toolCalls: readonly ToolCall[];
  readonly finishReason: FinishReason;
  readonly usage: ChatUsage;
}
