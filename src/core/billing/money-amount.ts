/**
 * Exact money arithmetic. Prices may be fractions of a micro-unit (a token at 0.15 micro-units):
 * they are kept as integers of `priceScale` parts of a micro-unit (BigInt), never as binary
 * floats, so 3 tokens at 0.1 cost exactly 0.3 and round up to 1, not to a float's 1.0000000000000002.
 */
const priceScale = 1_000_000n;

/** A price as written (integer micro-units, or a decimal with up to 6 places), in parts of `priceScale`. */
const decimalPattern = /^(\d{1,15})(?:\.(\d{1,6}))?$/;

/** The text of a valid price, for the config and policy schemas. */
export const priceAmountPattern = '^\\d{1,15}(\\.\\d{1,6})?$';

/**
 * A price in parts of `priceScale`. A number is read as the decimal it was written as, to 6 places
 * (0.15 is "0.150000", not its binary value 0.1499999999999999944...). The schemas let through only
 * non-negative numbers up to 1e15 and decimal strings of `priceAmountPattern`; anything else throws.
 */
export function parsePrice(amount: number | string): bigint {
  const text = typeof amount === 'number' ? amount.toFixed(6) : amount;
  const match = decimalPattern.exec(text);
  if (match === null) throw new RangeError(`'${text}' is not a price: a non-negative decimal with at most 6 places`);
  const fraction = (match[2] ?? '').padEnd(6, '0');
  return BigInt(match[1] ?? '0') * priceScale + BigInt(fraction);
}

/** Parts of `priceScale` rounded up to whole micro-units. */
export function ceilMicros(parts: bigint): bigint {
  return (parts + priceScale - 1n) / priceScale;
}

/** Micro-units as a number: exact below 2^53 (9 billion units); beyond that the amount is refused. */
export function microsNumber(micros: bigint): number {
  if (micros > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError(`an amount of ${micros} micro-units is beyond what is kept exactly`);
  return Number(micros);
}

/** Micro-units as a decimal string of the currency, 6 places: 1500 -> "0.001500", -2 -> "-0.000002". */
export function microsDecimal(micros: number | bigint): string {
  const value = BigInt(micros);
  const sign = value < 0n ? '-' : '';
  const magnitude = value < 0n ? -value : value;
  return `${sign}${magnitude / 1_000_000n}.${(magnitude % 1_000_000n).toString().padStart(6, '0')}`;
}
