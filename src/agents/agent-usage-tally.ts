import type { ChatUsage } from '../core/chat/chat-types.ts';
import type { AgentUsage } from './agent.ts';

/**
 * Sums what one agent run spent across its engine calls: every call counts in `calls` (the wire's
 * total_calls), even one that broke before it reported its tokens.
 */
export class AgentUsageTally {
  #promptTokens = 0;
  #completionTokens = 0;
  #calls = 0;

  /** Counts one engine call; its usage when the engine reported it. */
  addCall(usage?: ChatUsage): void {
    this.#calls += 1;
    if (usage === undefined) return;
    this.#promptTokens += usage.promptTokens;
    this.#completionTokens += usage.completionTokens;
  }

  get usage(): AgentUsage {
    return { promptTokens: this.#promptTokens, completionTokens: this.#completionTokens, calls: this.#calls };
  }
}
