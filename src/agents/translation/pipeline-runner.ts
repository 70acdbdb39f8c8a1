import type { ChatModel } from '../../core/chat/chat-model.ts';
import type { ChatMessage, FinishReason } from '../../core/chat/chat-types.ts';
import { EngineConnectionError, engineUnreachable } from '../../core/chat/engine-errors.ts';
import { ApiError } from '../../core/errors/api-error.ts';
import { flaggedWithoutLevel } from '../../core/errors/content-filter.ts';
import type { AgentEvent } from '../agent.ts';
import { agentChatRequest } from '../agent-chat-request.ts';
import { AgentUsageTally } from '../agent-usage-tally.ts';
import { missingTargets } from './glossary.ts';
import type { PipelineStep } from './translation-pipelines.ts';
import { glossaryCorrection, type TranslationTask } from './translation-prompts.ts';

type AgentFinish = 'stop' | 'length' | 'network_error';

/** The chat model a pipeline calls, by its catalog name. */
export interface PipelineEngine {
  readonly chat: ChatModel;
  readonly model: string;
  readonly signal: AbortSignal;
}

/**
 * Runs a strategy's steps in order. Earlier steps are plain calls whose output feeds the next
 * prompt; only the last step is streamed, so the client sees the answer grow. With glossary terms
 * in play the last step is not streamed: its output is checked first, and when a required term is
 * missing one corrective call (streamed) replaces it. Usage sums every call.
 */
export async function* runPipeline(engine: PipelineEngine, steps: readonly PipelineStep[], task: TranslationTask): AsyncGenerator<AgentEvent> {
  const tally = new AgentUsageTally();
  const earlier: Record<string, string> = {};
  let truncated = false;
  const planned = steps.slice(0, -1);
  const last = steps.at(-1);
  if (last === undefined) throw new Error('translation pipeline without steps');
  for (const step of planned) {
    const result = await generate(engine, step.prompt(task, earlier), step.temperature, tally);
    if (result.finish === 'length') truncated = true;
    earlier[step.name] = result.text;
  }
  let finish: AgentFinish;
  if (task.terms.length === 0) {
    finish = yield* stream(engine, last.prompt(task, earlier), last.temperature, tally);
  } else {
    const draft = await generate(engine, last.prompt(task, earlier), last.temperature, tally);
    const missing = missingTargets(task.terms, draft.text);
    if (missing.length === 0) {
      if (draft.text !== '') yield { kind: 'delta', text: draft.text };
      finish = draft.finish;
    } else {
      finish = yield* stream(engine, glossaryCorrection(task, draft.text, missing), 0.1, tally);
    }
  }
  yield { kind: 'done', finishReason: truncated && finish === 'stop' ? 'length' : finish, usage: tally.usage };
}

async function generate(
  engine: PipelineEngine,
  messages: readonly ChatMessage[],
  temperature: number,
  tally: AgentUsageTally,
): Promise<{ text: string; finish: AgentFinish }> {
  const result = await engine.chat.generate(agentChatRequest(engine.model, messages, engine.signal, { temperature }));
  tally.addCall(result.usage);
  return { text: result.content.trim(), finish: agentFinish(result.finishReason) };
}

/**
 * Streams one call as deltas and returns how it ended. A connection that breaks after text went
 * out ends the answer with `network_error`; before that, the client can still get an HTTP error.
 */
async function* stream(
  engine: PipelineEngine,
  messages: readonly ChatMessage[],
  temperature: number,
  tally: AgentUsageTally,
): AsyncGenerator<AgentEvent, AgentFinish> {
  let sentText = false;
  try {
    for await (const parts of engine.chat.stream(agentChatRequest(engine.model, messages, engine.signal, { temperature }))) {
      for (const part of parts) {
        if (part.type === 'text' && part.text !== '') {
          sentText = true;
          yield { kind: 'delta', text: part.text };
        } else if (part.type === 'finish') {
          tally.addCall(part.usage);
          return agentFinish(part.reason);
        }
      }
    }
    throw new EngineConnectionError('the engine stream ended without a finish');
  } catch (error) {
    if (!(error instanceof EngineConnectionError)) throw error;
    if (!sentText) throw engineUnreachable(engine.model, error.message);
    tally.addCall();
    return 'network_error';
  }
}

/** The agent's finish reasons; flagged content is an error, as a translation cannot end on it. */
function agentFinish(reason: FinishReason): AgentFinish {
  switch (reason) {
    case 'stop':
    case 'tool_calls':
      return 'stop';
    case 'length':
    case 'model_context_window_exceeded':
      return 'length';
    case 'network_error':
      return 'network_error';
    case 'sensitive':
      // The model stopped its own answer: the flagged side is the assistant's.
      throw new ApiError('1301', 'The text or its translation was flagged as unsafe or sensitive by the model.', {}, flaggedWithoutLevel('assistant'));
  }
}
