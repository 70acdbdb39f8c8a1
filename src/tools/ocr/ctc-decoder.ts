/** One decoded line: its text and the mean probability of its characters. */
export interface DecodedText {
  readonly text: string;
  readonly confidence: number;
}

/**
 * Greedy CTC decoding of the recogniser's softmax output for one line, PaddleOCR's convention:
 * class 0 is the blank, classes 1..n the dictionary lines, class n + 1 a space. The most likely
 * class is taken at each time step, repeats are merged and blanks dropped.
 *
 * @param probabilities the [steps × classes] block of one line, row by row
 */
export function decodeCtc(probabilities: Float32Array, offset: number, steps: number, classes: number, dictionary: readonly string[]): DecodedText {
  let text = '';
  let probabilitySum = 0;
  let characters = 0;
  let previous = 0;
  for (let step = 0; step < steps; step++) {
    const row = offset + step * classes;
    let best = 0;
    let bestProbability = probabilities[row] ?? 0;
    for (let index = 1; index < classes; index++) {
      const probability = probabilities[row + index] ?? 0;
      if (probability > bestProbability) {
        best = index;
        bestProbability = probability;
      }
    }
    if (best !== 0 && best !== previous) {
      text += best <= dictionary.length ? (dictionary[best - 1] ?? '') : ' ';
      probabilitySum += bestProbability;
      characters++;
    }
    previous = best;
  }
  return { text, confidence: characters === 0 ? 0 : probabilitySum / characters };
}
