import type { Agent, AgentServices } from './agent.ts';
import { createEffectVideoAgent } from './effects-video/effect-video-agent.ts';
import { createSlidesAgent } from './slides/slides-agent.ts';
import { createTranslationAgent } from './translation/translation-agent.ts';

export type AgentId = 'general_translation' | 'slides_glm_agent' | 'vidu_template_agent';

/** The one table mapping an agent_id of /v1/agents to its implementation. */
export function createAgents(services: AgentServices): Readonly<Record<AgentId, Agent>> {
  return {
    general_translation: createTranslationAgent(services),
    slides_glm_agent: createSlidesAgent(services),
    vidu_template_agent: createEffectVideoAgent(services),
  };
}
