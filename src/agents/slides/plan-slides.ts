import type { ChatModel } from '../../core/chat/chat-model.ts';
import type { ChatMessage } from '../../core/chat/chat-types.ts';
import { ApiError } from '../../core/errors/api-error.ts';
import { agentChatRequest } from '../agent-chat-request.ts';
import type { AgentUsageTally } from '../agent-usage-tally.ts';
import { plannerMessages, repairMessage, type PlannerTurn } from './planner-prompt.ts';
import { parseSlidePlan, PlanError, type SlidePlan } from './slide-plan.ts';

/** One answer that cannot be read as a plan gets one more try, with the problem shown. */
const maxAttempts = 2;

/**
 * Asks the chat model for the plan as a JSON object (response_format json_object) and reads it;
 * an unreadable answer is sent back once with what was wrong. Every call is counted in `tally`.
 */
export async function planSlides(
  chat: ChatModel,
  model: string,
  history: readonly PlannerTurn[],
  instruction: string,
  tally: AgentUsageTally,
  signal: AbortSignal,
): Promise<SlidePlan> {
  const messages: ChatMessage[] = plannerMessages(history, instruction);
  let problem = '';
  for (let attempt = 1; attempt <= maxAttempts; attempt += 1) {
    const request = { ...agentChatRequest(model, messages, signal, { temperature: 0.7 }), responseFormat: 'json_object' as const };
    let result;
    try {
      result = await chat.generate(request);
    } catch (error) {
      tally.addCall();
      throw error;
    }
    tally.addCall(result.usage);
    try {
      return parseSlidePlan(result.content);
    } catch (error) {
      if (!(error instanceof PlanError)) throw error;
      problem = error.message;
      messages.push({ role: 'assistant', content: result.content }, repairMessage(problem, result.finishReason === 'length'));
    }
  }
  throw new ApiError('1230', `The model '${model}' did not answer with a usable slide plan after ${maxAttempts} tries: ${problem}.`);
}
