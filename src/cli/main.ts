import { parseArgs } from 'node:util';
import { ConfigError } from '../core/config/config-error.ts';
import { runConfigCheck } from './config-check.command.ts';
import { runKeys } from './keys.command.ts';
import { runMigrate } from './migrate.command.ts';
import { runServe } from './serve.command.ts';

const usage = `Usage: model-platform <command> [options]

Commands:
  serve [--config FILE] [--port N] [--host H]   start the HTTP server
  migrate                                        apply pending database migrations
  keys create [--name NAME]                      create an API key and print it once
  keys list                                      list API keys (ids, names, state)
  keys revoke <id>                               revoke a key at once
  config check [--config FILE]                   validate the config file and exit

Environment: PORT, HOST, MODEL_PLATFORM_DATA_DIR, MODEL_PLATFORM_CONFIG,
MODEL_PLATFORM_BOOTSTRAP_KEY, MODEL_PLATFORM_MASTER_KEY, DATABASE_URL`;

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      config: { type: 'string' },
      port: { type: 'string' },
      host: { type: 'string' },
      name: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [command, ...rest] = positionals;
  if (values.help === true || command === undefined) {
    console.log(usage);
    return command === undefined && values.help !== true ? 2 : 0;
  }
  switch (command) {
    case 'serve':
      return runServe(values);
    case 'migrate':
      return runMigrate(values);
    case 'keys':
      return runKeys(rest, values);
    case 'config':
      if (rest[0] === 'check') return runConfigCheck(values);
      break;
  }
  console.error(`Unknown command: ${positionals.join(' ')}\n\n${usage}`);
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error instanceof ConfigError ? `Configuration error: ${error.message}` : error);
    process.exitCode = 1;
  },
);
