import { cliCommands, type CliCommand } from './cli-commands.ts';
import { cliOptions, type CliOption, type CliOptionName } from './cli-flags.ts';

const environment = `Environment: PORT, HOST, MODEL_PLATFORM_DATA_DIR, MODEL_PLATFORM_CONFIG,
MODEL_PLATFORM_BOOTSTRAP_KEY, MODEL_PLATFORM_MASTER_KEY, DATABASE_URL, REDIS_URL,
MODEL_PLATFORM_PUBLIC_URL, MODEL_PLATFORM_WORKER_CONCURRENCY, MODEL_PLATFORM_BLOB_RETENTION_DAYS,
MODEL_PLATFORM_BLOB_URL_TTL, S3_BUCKET, S3_ENDPOINT, S3_REGION, S3_ACCESS_KEY_ID,
S3_SECRET_ACCESS_KEY, S3_PUBLIC_ENDPOINT, MODEL_PLATFORM_METRICS_TOKEN, MODEL_PLATFORM_USAGE_RETENTION_DAYS,
MODEL_PLATFORM_TASK_LEASE_SECONDS, LOG_LEVEL`;

/** `--config FILE` or `--admin`, as usage writes an option. */
export function optionUsage(name: CliOptionName): string {
  const option: CliOption = cliOptions[name];
  return option.value === undefined ? `--${name}` : `--${name} ${option.value}`;
}

/** `keys revoke <id> [--config FILE]`. */
function synopsis(command: CliCommand): string {
  const options = Object.keys(command.options).map((name) => `[${optionUsage(name as CliOptionName)}]`);
  return [...command.words, ...(command.argumentsUsage === undefined ? [] : [command.argumentsUsage]), ...options].join(' ');
}

/** The whole command line: every command with its summary. */
export function generalUsage(): string {
  const width = Math.max(...cliCommands.map((command) => command.words.join(' ').length));
  const lines = cliCommands.map((command) => `  ${command.words.join(' ').padEnd(width)}   ${command.summary}`);
  return [
    'Usage: model-platform <command> [options]',
    '       model-platform <command> --help    (what one command takes)',
    '       model-platform --version',
    '',
    'Commands:',
    ...lines,
    '',
    environment,
  ].join('\n');
}

/** One command's usage, what it does and its options. */
export function commandUsage(command: CliCommand): string {
  const options = Object.entries(command.options).map(([name, description]) => [optionUsage(name as CliOptionName), description ?? ''] as const);
  const width = Math.max(0, ...options.map(([usage]) => usage.length));
  return [
    `Usage: model-platform ${synopsis(command)}`,
    '',
    ...wrapped(`${capitalized(command.summary)}.${command.details === undefined ? '' : ` ${command.details}`}`),
    ...(options.length === 0 ? [] : ['', 'Options:', ...options.map(([usage, description]) => `  ${usage.padEnd(width)}   ${description}`)]),
  ].join('\n');
}

/** The commands under one first word (`keys`), one line each. */
export function groupUsage(group: string): string {
  const lines = cliCommands.filter((command) => command.words[0] === group).map((command) => `model-platform ${synopsis(command)}`);
  return [...lines.map((line, index) => `${index === 0 ? 'Usage: ' : '       '}${line}`), '', `model-platform ${group} <action> --help tells more.`].join('\n');
}

/** The usage a refused command line is shown: its group's for an action (all of the group's forms), else its own. */
export function refusalUsage(command: CliCommand): string {
  const group = command.words[0];
  const inGroup = cliCommands.filter((other) => other.words[0] === group).length > 1;
  return inGroup && group !== undefined ? groupUsage(group) : commandUsage(command);
}

/** Prose as lines of at most `width` characters, broken between words. */
function wrapped(text: string, width = 96): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  return [...lines, line];
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
