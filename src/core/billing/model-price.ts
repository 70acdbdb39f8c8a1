import { Type, type Static } from '@sinclair/typebox';
import type { UsageRecord } from '../usage/usage-record.ts';
import { ceilMicros, parsePrice, priceAmountPattern } from './money-amount.ts';

const PriceAmount = (description: string) =>
  Type.Union([Type.Number({ minimum: 0, maximum: 1e15 }), Type.String({ pattern: priceAmountPattern })], {
    description: `${description} Micro-units: an integer, or a decimal (number or string) with up to 6 places.`,
  });

/**
 * What a model costs, per unit the usage ledger records, in micro-units of the configured
 * currency (1 unit = 1 000 000). Absent fields cost nothing. Used by the config's price table
 * (`billing.prices`) and by a key policy's own `credit.prices`, which replace the table's entry.
 */
export const ModelPriceSchema = Type.Object(
  {
    perCall: Type.Optional(PriceAmount('Each call that records usage (a task: once, when it ends).')),
    perPromptToken: Type.Optional(PriceAmount('Each input token not served from the cache.')),
    perCachedToken: Type.Optional(PriceAmount('Each cached input token (default: perPromptToken).')),
    perCompletionToken: Type.Optional(PriceAmount('Each output token.')),
    perImage: Type.Optional(PriceAmount('Each generated image (sync and async).')),
    perVideo: Type.Optional(PriceAmount('Each generated video.')),
    perPage: Type.Optional(PriceAmount('Each page read by layout parsing.')),
    perAudioSecond: Type.Optional(PriceAmount('Each second of transcribed audio (counted to the millisecond).')),
    perSearch: Type.Optional(PriceAmount('Each web search.')),
    perUrlRead: Type.Optional(PriceAmount('Each page the reader fetched.')),
  },
  { additionalProperties: false },
);
export type ModelPrice = Static<typeof ModelPriceSchema>;

/** What a call used, or may use at most, as far as prices go. */
export type PricedUsage = Pick<UsageRecord, 'promptTokens' | 'completionTokens' | 'cachedTokens' | 'units'>;

/**
 * The cost of one call's usage in whole micro-units: the exact sum of quantity x price, rounded up
 * once. Cached tokens are part of the prompt tokens (as engines report them): they are priced at
 * perCachedToken and the rest of the prompt at perPromptToken.
 */
export function costOf(usage: PricedUsage, price: ModelPrice): bigint {
  const at = (amount: number | string | undefined) => (amount === undefined ? 0n : parsePrice(amount));
  const units = usage.units ?? {};
  const cached = Math.min(usage.cachedTokens, usage.promptTokens);
  // Seconds to the millisecond: the engine's duration is a float; its thousandths are counted exactly.
  const audioMillis = count((units.audioSeconds ?? 0) * 1000);
  const parts =
    at(price.perCall) +
    count(usage.promptTokens - cached) * at(price.perPromptToken) +
    count(cached) * at(price.perCachedToken ?? price.perPromptToken) +
    count(usage.completionTokens) * at(price.perCompletionToken) +
    count(units.images) * at(price.perImage) +
    count(units.videos) * at(price.perVideo) +
    count(units.pages) * at(price.perPage) +
    (audioMillis * at(price.perAudioSecond) + 999n) / 1000n +
    count(units.searches) * at(price.perSearch) +
    count(units.urlsRead) * at(price.perUrlRead);
  return ceilMicros(parts);
}

/** A measured quantity as a whole count: engines report integers; a fraction is counted up, nothing below 0. */
function count(quantity: number | undefined): bigint {
  return BigInt(Math.max(0, Math.ceil(quantity ?? 0)));
}
