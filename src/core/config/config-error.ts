/**
 * A configuration problem found at start-up. The message names the file and the bad key, never a
 * value; a config file with several problems carries them all, one line each.
 */
export class ConfigError extends Error {
  readonly problems: readonly string[];

  constructor(message: string, problems: readonly string[] = [message]) {
    super(message);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}
