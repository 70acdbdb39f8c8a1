import { Type, type Static } from '@sinclair/typebox';
import type { KeyPolicy } from '../limits/key-policy.ts';
import { ModelPriceSchema, type ModelPrice } from './model-price.ts';

export const BillingConfigSchema = Type.Object(
  {
    currency: Type.Optional(
      Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217 code of the one currency every price and balance is in (default USD).' }),
    ),
    prices: Type.Optional(
      Type.Record(Type.String({ minLength: 1 }), ModelPriceSchema, {
        description: "Prices by model name (catalog models, agent ids, search engines, 'reader'); a key policy's credit.prices replace an entry for that key.",
      }),
    ),
  },
  { additionalProperties: false, description: 'Prices of every call, in micro-units (docs/billing.md).' },
);
export type BillingConfig = Static<typeof BillingConfigSchema>;

/** The currency of every amount: the config's, else USD. */
export function currencyOf(config: BillingConfig | undefined): string {
  return config?.currency ?? 'USD';
}

/**
 * The prices in force: the config's table, under each key's own `credit.prices`. Model names are
 * the caller's: only own entries count (`constructor` finds nothing).
 */
export class PriceTable {
  readonly currency: string;
  readonly #prices: Readonly<Record<string, ModelPrice>>;

  constructor(config: BillingConfig | undefined) {
    this.currency = currencyOf(config);
    this.#prices = config?.prices ?? {};
  }

  /** The key's own price of the model, else the table's; undefined when neither has one. */
  priceFor(policy: KeyPolicy | undefined, model: string): ModelPrice | undefined {
    return ownEntry(policy?.credit?.prices, model) ?? ownEntry(this.#prices, model);
  }
}

function ownEntry(prices: Readonly<Record<string, ModelPrice>> | undefined, model: string): ModelPrice | undefined {
  return prices !== undefined && Object.hasOwn(prices, model) ? prices[model] : undefined;
}
