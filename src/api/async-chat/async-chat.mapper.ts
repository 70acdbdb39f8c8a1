import { chatTaskResult } from '../../core/chat/chat-task-data.ts';
import type { TaskRecord } from '../../core/tasks/task.ts';
import { toWireSearchResult } from '../shared/search-result.mapper.ts';
import { toChatJob, toChatRetrieval, toChatSearch } from '../chat/chat-request.mapper.ts';
import { toChatCompletion } from '../chat/chat-response.mapper.ts';
import type { AsyncChatCompletionRequest } from './async-chat.schema.ts';

/** What a `chat` task stores (core/chat/chat-task-data.ts): the call as sync chat maps it, and its web_search and retrieval tools. */
export function toChatTaskRequest(body: AsyncChatCompletionRequest) {
  const search = toChatSearch(body);
  const retrieval = toChatRetrieval(body);
  return { ...toChatJob(body), ...(search === undefined ? {} : { search }), ...(retrieval === undefined ? {} : { retrieval }) };
}

/**
 * A chat task's answer as GET /async-result shows it: once SUCCESS, the sync answer's body (its
 * message, usage, web_search and content_filter) under the task's id; before that, no choices.
 */
export function toChatTaskAnswer(task: TaskRecord) {
  if (task.status !== 'SUCCESS') return { choices: [] };
  const stored = chatTaskResult.read(task);
  const header = {
    id: task.id,
    requestId: task.requestId,
    created: stored.created,
    model: task.model,
    ...(stored.webSearch === undefined ? {} : { webSearch: stored.webSearch.map(toWireSearchResult) }),
  };
  return toChatCompletion(header, stored);
}
