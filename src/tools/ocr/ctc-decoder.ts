/** One decoded line: its text and the mean probability of its characters. */
export interface DecodedText {
  readonly text: string;
  readonly confidence: number;
}

/**
 * Greedy CTC decoding of one line from the recogniser's most likely class at each time step and
 * its probability, PaddleOCR's convention: class 0 is the blank, classes 1..n the dictionary
 * lines, class n + 1 a space. Repeats are merged and blanks dropped.
 *
 * @param classes the best class of each step of a batch, line by line
 * @param probabilities the probability of each of those classes
 */
export function decodeCtc(classes: BigInt64Array, probabilities: Float32Array, offset: number, steps: number, dictionary: readonly string[]): DecodedText {
  let text = '';
  let probabilitySum = 0;
  let characters = 0;
  let previous = 0;
  for (let step = offset; step < offset + steps; step++) {
    const best = Number(classes[step] ?? 0n);
    if (best !== 0 && best !== previous) {
      text += best <= dictionary.length ? (dictionary[best - 1] ?? '') : ' ';
      probabilitySum += probabilities[step] ?? 0;
      characters++;
    }
    previous = best;
  }
  return { text, confidence: characters === 0 ? 0 : probabilitySum / characters };
}
