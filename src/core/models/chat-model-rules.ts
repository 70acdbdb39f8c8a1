import { textChatModels, visionChatModels } from './platform-models.ts';

type Series = '5' | '4.7' | '4.6' | '4.5' | '4-32b' | '4.6v' | '4.5v';

/** Per-series facts from the spec's chat table: sampling defaults, output cap, feature support. */
interface SeriesRules {
  readonly temperature: number;
  readonly topP: number;
  readonly maxOutputTokens: number;
  readonly toolStream: boolean;
  readonly vision: boolean;
}

const K = 1024;

const seriesRules: Record<Series, SeriesRules> = {
  '5': { temperature: 1.0, topP: 0.95, maxOutputTokens: 128 * K, toolStream: true, vision: false },
  '4.7': { temperature: 1.0, topP: 0.95, maxOutputTokens: 128 * K, toolStream: true, vision: false },
  '4.6': { temperature: 1.0, topP: 0.95, maxOutputTokens: 128 * K, toolStream: true, vision: false },
  '4.5': { temperature: 0.6, topP: 0.95, maxOutputTokens: 96 * K, toolStream: false, vision: false },
  '4-32b': { temperature: 0.75, topP: 0.9, maxOutputTokens: 16 * K, toolStream: false, vision: false },
  '4.6v': { temperature: 1.0, topP: 0.95, maxOutputTokens: 32 * K, toolStream: false, vision: true },
  '4.5v': { temperature: 0.6, topP: 0.95, maxOutputTokens: 16 * K, toolStream: false, vision: true },
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
