/** Every option of the command line; each command takes some of them (cli-commands.ts). */
export const cliOptions = {
  config: { type: 'string', value: 'FILE' },
  port: { type: 'string', value: 'N' },
  host: { type: 'string', value: 'H' },
  'no-workers': { type: 'boolean' },
  name: { type: 'string', value: 'NAME' },
  admin: { type: 'boolean' },
  policy: { type: 'string', value: 'JSON' },
  refresh: { type: 'boolean' },
  probe: { type: 'boolean' },
  url: { type: 'string', value: 'URL' },
  'base-url': { type: 'string', value: 'URL' },
  by: { type: 'string', value: 'day|key|model|endpoint' },
  from: { type: 'string', value: 'YYYY-MM-DD' },
  to: { type: 'string', value: 'YYYY-MM-DD' },
  format: { type: 'string', value: 'table|csv' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean' },
} as const satisfies Readonly<Record<string, CliOption>>;

export interface CliOption {
  readonly type: 'string' | 'boolean';
  /** What the value is, as usage shows it (`--config FILE`). */
  readonly value?: string;
  readonly short?: string;
}

export type CliOptionName = keyof typeof cliOptions;

/** The options of one command line, as parsed: a string for value options, true for switches. */
export type CommandFlags = {
  readonly [Name in CliOptionName]?: (typeof cliOptions)[Name]['type'] extends 'string' ? string : boolean;
};

/** Flags every command may receive. */
export interface CliFlags {
  readonly config?: string | undefined;
  readonly port?: string | undefined;
  readonly host?: string | undefined;
  readonly name?: string | undefined;
  /** keys create: the new key gets the admin scope. */
  readonly admin?: boolean | undefined;
  /** keys create: the new key's policy, as JSON. */
  readonly policy?: string | undefined;
}

/** Whether `name` (as typed on the command line) is one of the options above. */
export function isCliOptionName(name: string): name is CliOptionName {
  return Object.hasOwn(cliOptions, name);
}
