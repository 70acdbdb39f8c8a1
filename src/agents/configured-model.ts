import type { PlatformConfig } from '../core/config/config.schema.ts';
import { ApiError } from '../core/errors/api-error.ts';

type AgentName = keyof NonNullable<PlatformConfig['agents']>;

/**
 * The catalog model an agent is configured with (`agents.<agent_id>.model`); without one, a clear
 * 1221 naming the config key and an example line.
 */
export function configuredAgentModel(config: PlatformConfig, agent: AgentName, kind: 'chat' | 'video', example: string): string {
  const model = config.agents?.[agent]?.model;
  if (model === undefined) {
    throw new ApiError(
      '1221',
      `The agent '${agent}' has no ${kind} model configured. Set agents.${agent}.model in the config file (MODEL_PLATFORM_CONFIG) ` +
        `to a ${kind} model of the catalog, for example: agents: { ${agent}: { model: ${example} } }.`,
    );
  }
  return model;
}
