import { invalidField } from '../../core/errors/api-error.ts';
import { quoteClientValue } from '../../core/errors/quote-client-value.ts';
import type { AgentMessage } from '../agent.ts';
import { isSourceLanguage, isTargetLanguage, type SourceLanguageCode, type TargetLanguageCode } from './translation-languages.ts';

export const translationStrategies = ['general', 'paraphrase', 'two_step', 'three_step', 'reflection', 'cot'] as const;

export type TranslationStrategy = (typeof translationStrategies)[number];

/** One translation request, with the defaults of docs/wire.md §1.6 applied. */
export interface TranslationSettings {
  readonly sourceLang: SourceLanguageCode;
  readonly targetLang: TargetLanguageCode;
  readonly strategy: TranslationStrategy;
  /** strategy_config.general.suggestion: how the user wants the text rendered (general only). */
  readonly suggestion: string | undefined;
  /** strategy_config.cot.reason_lang: reasoning in the source (`from`) or target (`to`) language. */
  readonly reasonLang: 'from' | 'to';
  /** File id of the glossary (custom_variables.glossary). */
  readonly glossaryId: string | undefined;
}

/**
 * Reads custom_variables. The API layer has already checked them against the schema; the agent
 * checks again so that it never runs on a code it has no name for, whoever calls it.
 */
export function readTranslationSettings(variables: Readonly<Record<string, unknown>>): TranslationSettings {
  const sourceLang = variables['source_lang'] ?? 'auto';
  if (!isSourceLanguage(sourceLang))
    throw invalidField('custom_variables.source_lang', `'${quoteClientValue(sourceLang)}' is not a supported source language code`);
  const targetLang = variables['target_lang'] ?? 'zh-CN';
  if (!isTargetLanguage(targetLang))
    throw invalidField('custom_variables.target_lang', `'${quoteClientValue(targetLang)}' is not a supported target language code`);
  const strategy = variables['strategy'] ?? 'general';
  if (typeof strategy !== 'string' || !(translationStrategies as readonly string[]).includes(strategy)) {
    throw invalidField('custom_variables.strategy', `must be one of ${translationStrategies.join(', ')}`);
  }
  const config = asRecord(variables['strategy_config']);
  const suggestion = asRecord(config?.['general'])?.['suggestion'];
  const reasonLang = asRecord(config?.['cot'])?.['reason_lang'] ?? 'to';
  if (reasonLang !== 'from' && reasonLang !== 'to') throw invalidField('custom_variables.strategy_config.cot.reason_lang', "must be 'from' or 'to'");
  const glossary = variables['glossary'];
  return {
    sourceLang,
    targetLang,
    strategy: strategy as TranslationStrategy,
    suggestion: typeof suggestion === 'string' && suggestion.trim() !== '' ? suggestion.trim() : undefined,
    reasonLang,
    glossaryId: typeof glossary === 'string' && glossary !== '' ? glossary : undefined,
  };
}

/**
 * The text to translate: the text parts of the user messages, in order. Media parts are refused
 * rather than skipped: a client sending a file_url expects its content translated, and silently
 * translating only the rest would look like a complete answer.
 */
export function textToTranslate(messages: readonly AgentMessage[]): string {
  const pieces: string[] = [];
  messages.forEach((message, index) => {
    if (message.role !== 'user') throw invalidField(`messages[${index}].role`, "must be 'user' for general_translation");
    if (typeof message.content === 'string') {
      pieces.push(message.content);
      return;
    }
    const texts: string[] = [];
    message.content.forEach((part, partIndex) => {
      if (part.type !== 'text') {
        throw invalidField(
          `messages[${index}].content[${partIndex}].type`,
          `general_translation translates text parts only; send the text of the ${part.type.replace('_url', '')} as a text part`,
        );
      }
      texts.push(part.text ?? '');
    });
    pieces.push(texts.join('\n'));
  });
  const text = pieces.join('\n\n');
  if (text.trim() === '') throw invalidField('messages', 'contain no text to translate');
  return text;
}

function asRecord(value: unknown): Readonly<Record<string, unknown>> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}
