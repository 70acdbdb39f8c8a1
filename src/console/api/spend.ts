/**
 * Spend as the usage data carries it, when it does: the ledger's money as a decimal string beside
 * an integer of micro-units. The console reads the decimal string of any field named for spend,
 * so it shows money as soon as the server reports it and never does arithmetic in binary floats.
 */
export function spendOf(row: object): string | undefined {
  for (const [name, value] of Object.entries(row)) {
    if (name.includes('spend') && typeof value === 'string') return value;
  }
  return undefined;
}

/** Sums decimal strings exactly (as integers of their smallest digit). */
export function addDecimals(values: readonly string[]): string | undefined {
  if (values.length === 0) return undefined;
  const scale = Math.max(0, ...values.map((value) => value.split('.')[1]?.length ?? 0));
  const total = values.reduce((sum, value) => {
    const [whole = '0', fraction = ''] = value.split('.');
    return sum + BigInt(whole + fraction.padEnd(scale, '0'));
  }, 0n);
  const negative = total < 0n;
  const digits = (negative ? -total : total).toString().padStart(scale + 1, '0');
  const text = scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
  return negative ? `-${text}` : text;
}
