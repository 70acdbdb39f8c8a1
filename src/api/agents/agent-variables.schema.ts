import { Type } from '@sinclair/typebox';
import { sourceLanguageCodes, targetLanguageCodes } from '../../agents/translation/translation-languages.ts';
import { translationStrategies } from '../../agents/translation/translation-settings.ts';
import { StringEnum } from '../shared/common.schema.ts';

/**
 * The per-agent `custom_variables` rules of POST /v1/agents, in one place: each agent's variables
 * as a schema, and `agentVariableRules`, which ties each schema to its `agent_id` (JSON Schema
 * if/then, so the app's validator checks them and the OpenAPI document shows them).
 */

export const effectTemplates = ['french_kiss', 'bodyshake', 'sexy_me'] as const;

/**
 * custom_variables of general_translation (docs/wire.md §1.6). The language codes and strategies
 * come from the agent, which defines how its prompts name each one, so the two lists cannot drift.
 */
const TranslationVariables = Type.Object(
  {
    source_lang: Type.Optional(StringEnum(sourceLanguageCodes, { default: 'auto' })),
    target_lang: Type.Optional(StringEnum(targetLanguageCodes, { default: 'zh-CN' })),
    glossary: Type.Optional(Type.String({ minLength: 1, description: 'File id of an uploaded glossary.' })),
    strategy: Type.Optional(StringEnum(translationStrategies, { default: 'general' })),
    strategy_config: Type.Optional(
      Type.Object({
        general: Type.Optional(Type.Object({ suggestion: Type.Optional(Type.String({ description: 'Translation suggestion.' })) })),
        cot: Type.Optional(Type.Object({ reason_lang: Type.Optional(StringEnum(['from', 'to'], { description: 'Language of the reasoning.' })) })),
      }),
    ),
  },
  { title: 'TranslationVariables', description: 'custom_variables of general_translation.' },
);

/** custom_variables of vidu_template_agent: the effect to apply to the user's image. */
const EffectVideoVariables = Type.Object(
  { template: StringEnum(effectTemplates, { description: 'Special effect.' }) },
  { title: 'EffectVideoVariables', description: 'custom_variables of vidu_template_agent.' },
);

/** custom_variables of slides_glm_agent: not documented, so any object. */
const SlidesVariables = Type.Object(
  {},
  {
    additionalProperties: true,
    title: 'SlidesVariables',
    description: 'custom_variables of slides_glm_agent (free-form).',
  },
);

/** The body's `custom_variables`: one of the shapes above, picked by `agent_id` (see agentVariableRules). */
export const AgentVariables = Type.Union([TranslationVariables, EffectVideoVariables, SlidesVariables], {
  description: 'Agent settings; their shape depends on agent_id.',
});

/** `agent_id` = `agent` ⇒ the body matches `then`. */
function whenAgent(agent: string, then: Record<string, unknown>) {
  return {
    if: { type: 'object', properties: { agent_id: { const: agent } }, required: ['agent_id'] },
    then: { type: 'object', ...then },
  };
}

/** Attached to the request body as `allOf`: each agent's custom_variables schema, by agent_id. */
export const agentVariableRules = [
  whenAgent('general_translation', { properties: { custom_variables: TranslationVariables } }),
  whenAgent('vidu_template_agent', { required: ['custom_variables'], properties: { custom_variables: EffectVideoVariables } }),
];
