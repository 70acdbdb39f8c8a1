import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { costOf } from '../../src/core/billing/model-price.ts';
import { microsDecimal, parsePrice } from '../../src/core/billing/money-amount.ts';
import { PriceTable } from '../../src/core/billing/price-table.ts';

const tokens = (promptTokens: number, completionTokens: number, cachedTokens = 0) => ({ promptTokens, completionTokens, cachedTokens });

describe('prices and costs', () => {
  it('prices exactly, in decimals, and rounds up once per record', () => {
    // As binary floats 100 x 0.07 is 7.000000000000001, which would round up to 8.
    assert.equal(costOf(tokens(100, 0), { perPromptToken: 0.07 }), 7n);
    assert.equal(costOf(tokens(100, 0), { perPromptToken: '0.07' }), 7n);
    assert.equal(costOf(tokens(3, 1), { perPromptToken: '0.1', perCompletionToken: '0.000001' }), 1n, '0.300001 -> 1');
    assert.equal(costOf(tokens(0, 0), {}), 0n);
  });

  it('prices every unit the ledger records; cached tokens are part of the prompt', () => {
    const price = {
      perCall: 1000,
      perPromptToken: 10,
      perCachedToken: 1,
      perCompletionToken: 20,
      perImage: 100_000,
      perVideo: 1_000_000,
      perPage: 500,
      perAudioSecond: '0.5',
      perSearch: 3000,
      perUrlRead: 700,
    };
    const usage = { ...tokens(100, 10, 40), units: { images: 2, videos: 1, pages: 3, audioSeconds: 12.5, searches: 1, urlsRead: 2 } };
    const expected = 1000 + 60 * 10 + 40 * 1 + 10 * 20 + 2 * 100_000 + 1_000_000 + 3 * 500 + 6.25 + 3000 + 2 * 700;
    assert.equal(costOf(usage, price), BigInt(Math.ceil(expected)));
  });

  it('reads decimal strings and numbers to 6 places; writes micro-units as decimals', () => {
    assert.equal(parsePrice('0.15'), 150_000n);
    assert.equal(parsePrice(2), 2_000_000n);
    assert.throws(() => parsePrice('1e-3'), /not a price/);
    assert.equal(microsDecimal(1_250_300), '1.250300');
    assert.equal(microsDecimal(7), '0.000007');
    assert.equal(microsDecimal(-2), '-0.000002');
    assert.equal(microsDecimal(9_007_199_254_740_993n), '9007199254.740993');
  });

  it("a key's own entry replaces the table's; caller-chosen names find only own entries", () => {
    const table = new PriceTable({ prices: { 'glm-4.7': { perCall: 5 } } });
    assert.deepEqual(table.priceFor(undefined, 'glm-4.7'), { perCall: 5 });
    assert.deepEqual(table.priceFor({ credit: { prices: { 'glm-4.7': { perCall: 9 } } } }, 'glm-4.7'), { perCall: 9 });
    assert.equal(table.priceFor(undefined, 'constructor'), undefined);
    assert.equal(table.priceFor(undefined, 'glm-4.6'), undefined);
    assert.equal(table.currency, 'USD');
  });
});
