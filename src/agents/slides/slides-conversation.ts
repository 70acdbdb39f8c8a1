import { ApiError } from '../../core/errors/api-error.ts';
import type { StoredConversation } from '../conversation-store.ts';
import type { StoredPage } from './plan-rendering.ts';
import type { PlannerTurn } from './planner-prompt.ts';
import type { SlidePlan } from './slide-plan.ts';

/** A stored message: the user's instruction, or the plan (JSON) that answered it. */
export interface SlidesMessage {
  readonly role: 'user' | 'assistant';
  readonly content: string;
}

/** The conversation's current output: the plan and where its latest rendering is stored. */
export interface SlidesState {
  readonly plan: SlidePlan;
  readonly renderingId: string;
  readonly pdfKey: string;
  readonly pages: readonly StoredPage[];
}

export interface SlidesConversation {
  readonly messages: readonly SlidesMessage[];
  readonly state: SlidesState;
}

/** The JSON this agent stored, checked enough that a row of another shape fails clearly. */
export function readSlidesConversation(stored: StoredConversation): SlidesConversation {
  const state = stored.state as Partial<SlidesState> | null;
  if (!Array.isArray(stored.messages) || state === null || typeof state.plan !== 'object' || !Array.isArray(state.pages) || typeof state.pdfKey !== 'string') {
    throw new ApiError('500', `The stored slides conversation '${stored.id}' cannot be read.`);
  }
  return { messages: stored.messages as SlidesMessage[], state: state as SlidesState };
}

/** The messages as planner turns: each instruction with the plan that answered it. */
export function plannerTurns(messages: readonly SlidesMessage[]): PlannerTurn[] {
  const turns: PlannerTurn[] = [];
  messages.forEach((message, index) => {
    const answer = messages[index + 1];
    if (message.role === 'user' && answer?.role === 'assistant') turns.push({ instruction: message.content, plan: answer.content });
  });
  return turns;
}
