import type { PlatformConfig } from '../core/config/config.schema.ts';
import { ApiError } from '../core/errors/api-error.ts';
import { defaultChatModel } from '../core/models/platform-models.ts';

type AgentName = keyof NonNullable<PlatformConfig['agents']>;

/** The chat model an agent is configured with (`agents.<agent_id>.model`), else the one served with no configuration. */
export function agentChatModel(config: PlatformConfig, agent: AgentName): string {
  return config.agents?.[agent]?.model ?? defaultChatModel;
}

/**
 * The video model an agent is configured with; without one, a clear 1221 naming the config key
 * and an example line (no video engine runs without configuration).
 */
export function agentVideoModel(config: PlatformConfig, agent: AgentName, example: string): string {
  const model = config.agents?.[agent]?.model;
  if (model === undefined) {
    throw new ApiError(
      '1221',
      `The agent '${agent}' has no video model configured. Set agents.${agent}.model in the config file (MODEL_PLATFORM_CONFIG) ` +
        `to a video model of the catalog, for example: agents: { ${agent}: { model: ${example} } }.`,
    );
  }
  return model;
}
