import type { TaskHandler } from '../tasks/task.ts';
import type { CapabilitySource } from '../models/capability.ts';
import { chatTaskRequest, type StoredChatJob, type StoredChatResult } from './chat-task-data.ts';
import type { ChatRequest } from './chat-types.ts';
import { prepareChat, type ChatPreparation } from './prepare-chat.ts';

export interface ChatTaskDependencies extends ChatPreparation {
  readonly backends: ChatPreparation['backends'] & CapabilitySource<'chat'>;
}

/**
 * The handler of `chat` tasks (POST /async/chat/completions): the call the route stored runs as a
 * sync call does (prepareChat, then the model's engine, whose own concurrency limit applies), and
 * the answer is stored for GET /async-result. A failing engine's ApiError becomes the FAIL reason.
 */
export function createChatTaskHandler(deps: ChatTaskDependencies): TaskHandler {
  return {
    kind: 'chat',
    async run(task, signal): Promise<StoredChatResult> {
      const job = chatTaskRequest.read(task);
      const chat = deps.backends.capability(job.model, 'chat');
      // The retrieval tool reads the knowledge base of the key that submitted the call.
      const retrieval = job.retrieval === undefined ? undefined : { ...job.retrieval, ownerKeyId: task.ownerKeyId };
      const { request, searchResults } = await prepareChat(deps, toChatRequest(job, signal), job.search, retrieval);
      const result = await chat.generate(request);
      return {
        content: result.content,
        reasoningContent: result.reasoningContent,
        toolCalls: result.toolCalls.map((call) => ({ id: call.id, name: call.name, arguments: call.arguments })),
        finishReason: result.finishReason,
        usage: { promptTokens: result.usage.promptTokens, completionTokens: result.usage.completionTokens, cachedTokens: result.usage.cachedTokens },
        created: Math.floor(Date.now() / 1000),
        searches: job.search === undefined ? 0 : 1,
        ...(searchResults !== undefined && job.search?.showResults === true ? { webSearch: [...searchResults] } : {}),
      };
    },
  };
}

/** The stored call as engines take it, under the task's signal (deadline, shutdown, lost lease). */
function toChatRequest(job: StoredChatJob, signal: AbortSignal): ChatRequest {
  return {
    model: job.model,
    messages: job.messages,
    tools: job.tools,
    temperature: job.temperature,
    topP: job.topP,
    greedy: job.greedy,
    maxTokens: job.maxTokens,
    maxTokensLimit: job.maxTokensLimit,
    stop: job.stop,
    responseFormat: job.responseFormat,
    thinking: { enabled: job.thinking.enabled, effort: job.thinking.effort },
    seed: job.seed,
    signal,
  };
}
