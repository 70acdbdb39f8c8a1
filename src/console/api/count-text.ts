const pluralRules = new Intl.PluralRules('en');
const numbers = new Intl.NumberFormat('en');

/** A count with its noun in the form the count takes ('1 call', '0 calls', '2,500 tokens'). */
export function countText(count: number, one: string, other: string): string {
  return `${numbers.format(count)} ${pluralRules.select(count) === 'one' ? one : other}`;
}
