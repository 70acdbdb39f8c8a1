/** A configuration problem found at start-up; the message names the file and the bad key. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}
