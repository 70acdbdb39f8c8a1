import { lastUserText } from '../chat/chat-web-search.ts';
import type { ChatMessage, ChatRequest, ContentPart } from '../chat/chat-types.ts';
import { notFound, type ApiError } from '../errors/api-error.ts';
import type { KnowledgeHit, KnowledgeIndex } from './knowledge-index.ts';

/** The chat retrieval tool's settings: which knowledge base of the calling key, and the prompt around its passages. */
export interface ChatRetrieval {
  readonly knowledgeId: string;
  /** Where `{{knowledge}}` stands for the passages and `{{question}}` for the question; undefined: the default. */
  readonly promptTemplate?: string | undefined;
}

/** Passages put into the prompt for one question. */
export const retrievedPassages = 5;

/**
 * The platform's instruction when the tool names no template: answer from the passages, and say
 * so when the answer is not in them rather than invent a quotation.
 */
const defaultPromptTemplate = [
  'Answer the question from the document below.',
  '',
  'Document:',
  '"""',
  '{{knowledge}}',
  '"""',
  '',
  'Question:',
  '"""',
  '{{question}}',
  '"""',
  '',
  'If the document has the answer, answer with its sentences only. If it does not, answer from your own knowledge and say that the answer is not from the document. Do not repeat the question; begin with the answer.',
].join('\n');

/**
 * The request with the knowledge base's best passages for the last user turn in its prompt: that
 * turn's text becomes the template with `{{knowledge}}` and `{{question}}` filled in (a template
 * without `{{question}}` is followed by the question). A knowledge id the key does not have —
 * another key's included — is "not found", as an unknown file is.
 */
export async function withRetrievedKnowledge(
  knowledge: KnowledgeIndex,
  ownerKeyId: string,
  retrieval: ChatRetrieval,
  request: ChatRequest,
): Promise<{ request: ChatRequest; passages: readonly KnowledgeHit[] }> {
  const question = lastUserText(request.messages);
  const passages = await knowledge.search(ownerKeyId, retrieval.knowledgeId, question, retrievedPassages);
  if (passages === undefined) throw knowledgeBaseNotFound(retrieval.knowledgeId);
  const index = lastUserIndex(request.messages);
  if (index < 0) return { request, passages };
  const template = retrieval.promptTemplate ?? defaultPromptTemplate;
  const filled = fillTemplate(template, passages.map((passage) => passage.content).join('\n\n'), question);
  const messages = request.messages.map((message, position) => (position === index ? withText(message, filled) : message));
  return { request: { ...request, messages }, passages };
}

/**
 * Refuses, before anything is queued or charged, a retrieval tool naming a knowledge base the key
 * does not have (an async call would otherwise fail only later, in its task).
 */
export async function checkKnowledgeBase(knowledge: KnowledgeIndex, ownerKeyId: string, knowledgeId: string): Promise<void> {
  if (!(await knowledge.has(ownerKeyId, knowledgeId))) throw knowledgeBaseNotFound(knowledgeId);
}

/** Another key's knowledge id reads exactly as an unknown one. */
function knowledgeBaseNotFound(knowledgeId: string): ApiError {
  return notFound('Knowledge base', knowledgeId);
}

/** One pass over the template, so text inside the passages is never taken for a placeholder. */
function fillTemplate(template: string, knowledgeText: string, question: string): string {
  const filled = template.replace(/\{\{\s*(knowledge|question)\s*\}\}/g, (_, name: string) => (name === 'knowledge' ? knowledgeText : question));
  return /\{\{\s*question\s*\}\}/.test(template) ? filled : `${filled}\n\n${question}`;
}

function lastUserIndex(messages: readonly ChatMessage[]): number {
  for (let index = messages.length - 1; index >= 0; index -= 1) if (messages[index]?.role === 'user') return index;
  return -1;
}

/** The message with its text replaced by `text`; its media parts stay, after the text. */
function withText(message: ChatMessage, text: string): ChatMessage {
  if (message.content === null || typeof message.content === 'string') return { ...message, content: text };
  const media = message.content.filter((part) => part.type !== 'text');
  const parts: ContentPart[] = [{ type: 'text', text }, ...media];
  return { ...message, content: parts };
}
