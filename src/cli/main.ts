import { parseArgs } from 'node:util';
import { ConfigError } from '../core/config/config-error.ts';
import { runConfigCheck } from './config-check.command.ts';
import { runIndex } from './index.command.ts';
import { runKeys } from './keys.command.ts';
import { runMigrate } from './migrate.command.ts';
import { runServe } from './serve.command.ts';
import { runUsage } from './usage.command.ts';
import { runWorker } from './worker.command.ts';

const usage = `Usage: model-platform <command> [options]

Commands:
  serve [--config FILE] [--port N] [--host H]   start the HTTP server (and task workers,
        [--no-workers]                           unless --no-workers)
  worker [--config FILE] [--port N]              run task workers only (scale apart from serve);
                                                 --port: /healthz, /readyz, /metrics on N
  migrate                                        apply pending database migrations
  keys create [--name NAME] [--admin]           create an API key and print it once
        [--policy JSON]                          (--admin: may call the admin API, /admin)
  keys list                                      list API keys (ids, names, state, policies)
  keys revoke <id>                               revoke a key at once
  keys policy <id> <JSON>                        replace a key's limits, for example
        '{"requestsPerMinute":60,"quota":{"period":"day","calls":1000}}'
  config check [--config FILE]                   validate the config file and exit
  index add <url|file|dir|sitemap>... [--refresh]  add pages to the local search index
  index remove <url|prefix*>                     remove a page, or every page under a prefix
  usage report [--by day|key|model|endpoint]     usage sums by UTC day, key, model, endpoint (or
        [--from YYYY-MM-DD] [--to YYYY-MM-DD]    several: --by key,model); last 30 days by default
        [--format table|csv]

Environment: PORT, HOST, MODEL_PLATFORM_DATA_DIR, MODEL_PLATFORM_CONFIG,
MODEL_PLATFORM_BOOTSTRAP_KEY, MODEL_PLATFORM_MASTER_KEY, DATABASE_URL, REDIS_URL,
MODEL_PLATFORM_PUBLIC_URL, MODEL_PLATFORM_WORKER_CONCURRENCY, MODEL_PLATFORM_BLOB_RETENTION_DAYS,
MODEL_PLATFORM_BLOB_URL_TTL, S3_BUCKET, S3_ENDPOINT, S3_REGION, S3_ACCESS_KEY_ID,
S3_SECRET_ACCESS_KEY, S3_PUBLIC_ENDPOINT, MODEL_PLATFORM_METRICS_TOKEN, MODEL_PLATFORM_USAGE_RETENTION_DAYS,
MODEL_PLATFORM_TASK_LEASE_SECONDS`;

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      config: { type: 'string' },
      port: { type: 'string' },
      host: { type: 'string' },
      name: { type: 'string' },
      admin: { type: 'boolean' },
      policy: { type: 'string' },
      'no-workers': { type: 'boolean' },
      refresh: { type: 'boolean' },
      by: { type: 'string' },
      from: { type: 'string' },
      to: { type: 'string' },
      format: { type: 'string' },
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
    case 'worker':
      return runWorker(values);
    case 'migrate':
      return runMigrate(values);
    case 'keys':
      return runKeys(rest, values);
    case 'usage':
      return runUsage(rest, values);
    case 'index':
      return runIndex(rest, values);
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
