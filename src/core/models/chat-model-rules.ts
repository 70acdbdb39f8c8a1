import { textChatModels, visionChatModels } from './platform-models.ts';

type Series = '5' | '4.7' | '4.6' | '4.5' | '4-32b' | '4.6v' | '4.5v';

/** Per-series facts as the platform documents them: sampling defaults, output cap, feature support. */
interface SeriesRules {
  readonly temperature: number;
  readonly topP: number;
  readonly maxOutputTokens: number;
  readonly toolStream: boolean;
  readonly vision: boolean;
  /** Whether the series thinks at all: the platform gives `thinking` to the glm-4.5 series and later only. */
  readonly thinking: boolean;
}

const K = 1024;

const seriesRules: Record<Series, SeriesRules> = {
  '5': { temperature: 1.0, topP: 0.95, maxOutputTokens: 128 * K, toolStream: true, vision: false, thinking: true },
  '4.7': { temperature: 1.0, topP: 0.95, maxOutputTokens: 128 * K, toolStream: true, vision: false, thinking: true },
  '4.6': { temperature: 1.0, topP: 0.95, maxOutputTokens: 128 * K, toolStream: true, vision: false, thinking: true },
  '4.5': { temperature: 0.6, topP: 0.95, maxOutputTokens: 96 * K, toolStream: false, vision: false, thinking: true },
  '4-32b': { temperature: 0.75, topP: 0.9, maxOutputTokens: 16 * K, toolStream: false, vision: false, thinking: false },
  '4.6v': { temperature: 1.0, topP: 0.95, maxOutputTokens: 32 * K, toolStream: false, vision: true, thinking: true },
  '4.5v': { temperature: 0.6, topP: 0.95, maxOutputTokens: 16 * K, toolStream: false, vision: true, thinking: true },
};

function seriesOf(model: string): Series | undefined {
  if (!(textChatModels as readonly string[]).includes(model) && !(visionChatModels as readonly string[]).includes(model)) {
    return undefined;
  }
  if (model.startsWith('glm-4.6v')) return '4.6v';
  if (model.startsWith('glm-4.5v')) return '4.5v';
  if (model.startsWith('glm-5')) return '5';
  if (model.startsWith('glm-4.7')) return '4.7';
  if (model.startsWith('glm-4.6')) return '4.6';
  if (model.startsWith('glm-4.5')) return '4.5';
  return '4-32b';
}

/** The rules of a platform chat model, or undefined for an operator's own catalog model. */
export function chatModelRules(model: string): SeriesRules | undefined {
  const series = seriesOf(model);
  return series === undefined ? undefined : seriesRules[series];
}

/** glm-5.3 (and its flash variant): thinking can only be enabled; effort only low, high or max. */
export function isFixedThinkingModel(model: string): boolean {
  return model.startsWith('glm-5.3');
}

export const fixedThinkingEfforts = ['low', 'high', 'max'] as const;

type Effort = 'max' | 'xhigh' | 'high' | 'medium' | 'low' | 'minimal' | 'none';

/** glm-5.2: none/minimal skip thinking; low and medium map to high; xhigh maps to max (the platform's reasoning_effort). */
const glm52Efforts: Record<Effort, Effort | 'skip'> = {
  max: 'max',
  xhigh: 'max',
  high: 'high',
  medium: 'high',
  low: 'high',
  minimal: 'skip',
  none: 'skip',
};

/**
 * Whether the model thinks for this request, and at which effort (the platform's `thinking.type` and
 * `reasoning_effort`). Thinking is on by default from the glm-4.5 series on; glm-4-32b-0414-128k,
 * older, never thinks (the field does not apply to it); glm-4.7 and glm-4.5v always think; glm-5.3
 * cannot turn it off; effort exists from glm-5.2 on (default max) and only while thinking. An
 * operator's own model gets what the client sent.
 */
export function effectiveThinking(
  model: string,
  requestedType: 'enabled' | 'disabled' | undefined,
  requestedEffort: Effort | undefined,
): { enabled: boolean; effort: Effort | undefined } {
  const rules = chatModelRules(model);
  if (rules?.thinking === false) return { enabled: false, effort: undefined };
  const platformModel = rules !== undefined;
  const alwaysThinks = model.startsWith('glm-4.7') || model.startsWith('glm-4.5v') || isFixedThinkingModel(model);
  let enabled = requestedType !== 'disabled' || (platformModel && alwaysThinks);
  if (!platformModel) return { enabled, effort: enabled ? requestedEffort : undefined };
  if (!enabled) return { enabled, effort: undefined };
  if (isFixedThinkingModel(model)) return { enabled, effort: requestedEffort ?? 'max' };
  if (model.startsWith('glm-5.2')) {
    const mapped = glm52Efforts[requestedEffort ?? 'max'];
    if (mapped === 'skip') enabled = false;
    return { enabled, effort: mapped === 'skip' ? undefined : mapped };
  }
  return { enabled, effort: undefined };
}
