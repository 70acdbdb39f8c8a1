/** The places the server writes a `spend` decimal with (micro-units of the currency). */
const spendPlaces = 6;

/**
 * The rows' spend summed exactly from their decimal strings (as integers of the smallest digit,
 * never binary floats), written as the server writes one: 6 places, so no rows read `0.000000`.
 */
export function sumSpend(rows: readonly { readonly spend: string }[]): string {
  const values = rows.map((row) => row.spend);
  const scale = Math.max(spendPlaces, ...values.map((value) => value.split('.')[1]?.length ?? 0));
  const total = values.reduce((sum, value) => {
    const [whole = '0', fraction = ''] = value.split('.');
    return sum + BigInt(whole + fraction.padEnd(scale, '0'));
  }, 0n);
  const negative = total < 0n;
  const digits = (negative ? -total : total).toString().padStart(scale + 1, '0');
  const text = `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
  return negative ? `-${text}` : text;
}
