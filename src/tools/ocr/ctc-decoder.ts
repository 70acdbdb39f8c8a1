/** One decoded line: its text and the mean probability of its characters. */
export interface DecodedText {
  readonly text: string;
  readonly confidence: number;
}

/**
 * Greedy CTC decoding of one line from the recogniser's most likely class at each time step and
 * its probability, PaddleOCR's convention: class 0 is the blank, classes 1..n the dictionary
 * lines, class n + 1 a space. Repeats are merged and blanks dropped, and so are spaces at either
 * end: they separate nothing (a page's line is its text trimmed), and left in they would weigh on
 * the confidence; the recogniser puts one at an end of a crop now and then, on the blank beside
 * the text, more often in 8 bits than in floats.
 *
 * @param classes the best class of each step of a batch, line by line
 * @param probabilities the probability of each of those classes
 */
export function decodeCtc(classes: BigInt64Array, probabilities: Float32Array, offset: number, steps: number, dictionary: readonly string[]): DecodedText {
  const kept: { readonly character: string; readonly probability: number }[] = [];
  let previous = 0;
  for (let step = offset; step < offset + steps; step++) {
    const best = Number(classes[step] ?? 0n);
    if (best !== 0 && best !== previous) {
      kept.push({ character: best <= dictionary.length ? (dictionary[best - 1] ?? '') : ' ', probability: probabilities[step] ?? 0 });
    }
    previous = best;
  }
  const first = kept.findIndex((item) => item.character !== ' ');
  const characters = first < 0 ? [] : kept.slice(first, kept.findLastIndex((item) => item.character !== ' ') + 1);
  return {
    text: characters.map((item) => item.character).join(''),
    confidence: characters.length === 0 ? 0 : characters.reduce((sum, item) => sum + item.probability, 0) / characters.length,
  };
}
