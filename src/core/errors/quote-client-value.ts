/** Characters of a caller's value that an error message quotes; the rest is cut. */
const quotedValueChars = 64;

/**
 * A caller's value as an error message quotes it: its first characters, and `…` when it was
 * longer. A message names what was wrong, it does not echo the input: a 7 MB `model` value must
 * not come back as a 7 MB error (nor fill the logs that record the message). Control characters
 * are shown escaped so a quoted value cannot break a log line.
 */
export function quoteClientValue(value: unknown, maxChars: number = quotedValueChars): string {
  const text = typeof value === 'string' ? value : String(value);
  const cut =
    text.length > maxChars
      ? `${Array.from(text.slice(0, maxChars + 1))
          .slice(0, maxChars)
          .join('')}…`
      : text;
  let quoted = '';
  for (const character of cut) {
    const code = character.charCodeAt(0);
    quoted += code < 0x20 || code === 0x7f ? `\\u${code.toString(16).padStart(4, '0')}` : character;
  }
  return quoted;
}

/**
 * The longest message an error carries. Messages quote caller values through quoteClientValue;
 * this is the backstop for a message that quotes one some other way.
 */
const maxErrorMessageChars = 2000;

/** Cuts a message to maxErrorMessageChars, marking the cut. */
export function capErrorMessage(message: string): string {
  return message.length > maxErrorMessageChars ? `${message.slice(0, maxErrorMessageChars)}…` : message;
}
