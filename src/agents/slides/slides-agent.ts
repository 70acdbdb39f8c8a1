import { randomUUID } from 'node:crypto';
import { ApiError, invalidField, notFound } from '../../core/errors/api-error.ts';
import type { Agent, AgentEvent, AgentInput, AgentMessage, AgentServices, ConversationItem, ConversationQuery } from '../agent.ts';
import { agentChatModel } from '../configured-model.ts';
import { AgentUsageTally } from '../agent-usage-tally.ts';
import type { AgentConversationStore } from '../conversation-store.ts';
import { deckPageSize, posterPageSize, resolvePageSizes } from './page-sizes.ts';
import { pageCount, renderingPrefix, renderPlan, renderResized, type StoredPage } from './plan-rendering.ts';
import { planSlides } from './plan-slides.ts';
import { planSummary } from './plan-summary.ts';
import { SlideRenderer } from './slide-renderer.ts';
import { plannerTurns, readSlidesConversation, type SlidesMessage, type SlidesState } from './slides-conversation.ts';

const agentId = 'slides_glm_agent';
const defaultChromiumPath = '/usr/bin/chromium';

/** What the agent builds on; `conversations` is where its conversations are kept. */
export interface SlidesAgentServices extends Pick<AgentServices, 'config' | 'backends' | 'blobs'> {
  readonly conversations?: AgentConversationStore;
}

/**
 * The agent with what its route and the platform need beyond Agent: `conversation(query, origin)`
 * gives absolute download URLs (origin: the one the client reached the server at, the route's
 * requestOrigin), and `close()` ends the agent's Chromium.
 */
export interface SlidesAgent extends Agent {
  conversation(query: ConversationQuery, origin?: string): Promise<readonly ConversationItem[] | undefined>;
  close(): Promise<void>;
}

/**
 * slides_glm_agent: the catalog chat model plans a deck (or a poster) as JSON; the agent draws
 * it with its own HTML templates in headless Chromium, stores a PDF and one PNG per page, and
 * keeps the conversation, so a message with the same conversation_id revises the plan. The
 * answer text names the pages; the pages are read with POST /v1/agents/conversation.
 */
export function createSlidesAgent(services: SlidesAgentServices): SlidesAgent {
  const renderer = new SlideRenderer(services.config.reader?.chromiumPath ?? defaultChromiumPath);

  async function* run(input: AgentInput): AsyncIterable<AgentEvent> {
    const model = agentChatModel(services.config, agentId);
    const conversations = conversationStore(services);
    const instruction = instructionOf(input.messages);
    const chat = services.backends.capability(model, 'chat');
    const previous = input.conversationId === undefined ? undefined : await findConversation(conversations, input.ownerKeyId, input.conversationId);
    const earlier = previous === undefined ? undefined : readSlidesConversation(previous);
    const tally = new AgentUsageTally();
    const plan = await planSlides(chat, model, plannerTurns(earlier?.messages ?? []), instruction, tally, input.signal);

    const conversationId = previous?.id ?? randomUUID();
    const renderingId = randomUUID();
    const sizes = Array.from({ length: pageCount(plan) }, () => (plan.kind === 'poster' ? posterPageSize : deckPageSize));
    const rendered = await renderPlan(renderer, services.blobs, plan, sizes, renderingPrefix(conversationId, renderingId), input.signal);
    const state: SlidesState = { plan, renderingId, ...rendered };
    const messages: SlidesMessage[] = [
      ...(earlier?.messages ?? []),
      { role: 'user', content: instruction },
      { role: 'assistant', content: JSON.stringify(plan) },
    ];
    const now = Date.now();
    if (previous === undefined) {
      await conversations.create({ id: conversationId, agentId, ownerKeyId: input.ownerKeyId, revision: 1, messages, state, createdAt: now, updatedAt: now });
    } else if (!(await conversations.update({ id: conversationId, ownerKeyId: input.ownerKeyId, messages, state, updatedAt: now }, previous.revision))) {
      throw new ApiError('1230', `The conversation '${conversationId}' was changed by another request meanwhile; send the message again.`);
    }

    for (const line of planSummary(plan, instruction, previous !== undefined)) yield { kind: 'delta', text: line };
    yield { kind: 'done', finishReason: 'stop', usage: tally.usage, conversationId };
  }

  async function conversation(query: ConversationQuery, origin?: string): Promise<readonly ConversationItem[] | undefined> {
    const stored = await conversationStore(services).find(agentId, query.ownerKeyId, query.conversationId);
    if (stored === undefined) return undefined;
    const { state } = readSlidesConversation(stored);
    // Download URLs are absolute: they need the origin the client reached this server at.
    if (origin === undefined) throw new ApiError('500', `The slides of conversation '${stored.id}' need the request's origin to give their download URLs.`);
    let pages: readonly StoredPage[] = state.pages;
    let pdfKey: string | undefined = query.includePdf ? state.pdfKey : undefined;
    if (query.pages.length > 0) {
      const sizes = resolvePageSizes(state.pages.length, state.pages, query.pages);
      const prefix = renderingPrefix(stored.id, state.renderingId);
      const signal = AbortSignal.timeout(120_000);
      ({ pages, pdfKey } = await renderResized(renderer, services.blobs, state.plan, state, sizes, prefix, query.includePdf, signal));
    }
    const items: ConversationItem[] = [];
    for (const [index, page] of pages.entries()) {
      items.push({ type: 'image_url', url: await services.blobs.downloadUrl(page.key, origin), tagCn: `第${index + 1}页`, tagEn: `Page ${index + 1}` });
    }
    if (pdfKey !== undefined) items.push({ type: 'file_url', url: await services.blobs.downloadUrl(pdfKey, origin), tagCn: 'PDF', tagEn: 'PDF' });
    return items;
  }

  return { run, conversation, close: () => renderer.close() };
}

function conversationStore(services: SlidesAgentServices): AgentConversationStore {
  if (services.conversations === undefined) throw new ApiError('500', `The agent '${agentId}' was started without conversation storage.`);
  return services.conversations;
}

async function findConversation(conversations: AgentConversationStore, ownerKeyId: string, id: string) {
  const found = await conversations.find(agentId, ownerKeyId, id);
  if (found === undefined) throw notFound('Conversation', id);
  return found;
}

/** The user's words: the text of every user message, in order (other parts are not used by the planner). */
function instructionOf(messages: readonly AgentMessage[]): string {
  const texts = messages
    .filter((message) => message.role === 'user')
    .flatMap((message) =>
      typeof message.content === 'string'
        ? [message.content]
        : message.content.flatMap((part) => (part.type === 'text' && part.text !== undefined ? [part.text] : [])),
    )
    .map((text) => text.trim())
    .filter((text) => text !== '');
  if (texts.length === 0) throw invalidField('messages', 'the slides agent needs a text message saying what the slides or poster are about');
  return texts.join('\n\n');
}
