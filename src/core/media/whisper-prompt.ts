/**
 * The prompt, with the hotwords appended as a comma-separated list: Whisper models have no hotword
 * input, and learn a vocabulary from the words of the text they continue.
 */
export function promptWithHotwords(prompt: string | undefined, hotwords: readonly string[]): string | undefined {
  const words = hotwords.filter((word) => word !== '').join(', ');
  if (words === '') return prompt === '' ? undefined : prompt;
  return prompt === undefined || prompt === '' ? words : `${prompt} ${words}`;
}
