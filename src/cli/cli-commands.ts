import type { CliOptionName, CommandFlags } from './cli-flags.ts';

/**
 * One command of the command line. Its module is imported only when it runs, so `--help`,
 * `--version` and refused command lines load none of the platform.
 */
export interface CliCommand {
  /** The words that name it: ['serve'], ['keys', 'create']. */
  readonly words: readonly string[];
  /** Its arguments after the words, as usage shows them. */
  readonly argumentsUsage?: string;
  readonly minArguments: number;
  readonly maxArguments: number;
  /** The options it takes, each with what it does for this command. */
  readonly options: Readonly<Partial<Record<CliOptionName, string>>>;
  /** One line for the list of commands. */
  readonly summary: string;
  /** More for `<command> --help`. */
  readonly details?: string;
  readonly run: (args: readonly string[], flags: CommandFlags) => Promise<number>;
}

/**
 * Runs a long-lived command (serve, worker) traced when the environment asks for it: the SDK starts
 * before the command's modules load, so the database and Redis clients are instrumented, and it
 * sends its last spans once the command has closed everything.
 */
async function traced(command: () => Promise<number>): Promise<number> {
  return (await import('../platform/telemetry/start-telemetry.ts')).withTelemetry(process.env, command);
}

const config = 'the config file (default: MODEL_PLATFORM_CONFIG)';
const storage = { config } as const;

export const cliCommands: readonly CliCommand[] = [
  {
    words: ['serve'],
    minArguments: 0,
    maxArguments: 0,
    options: {
      config,
      port: 'listen on port N (default: PORT, else 8080)',
      host: 'listen on address H (default: HOST, else 127.0.0.1; 0.0.0.0 for every interface)',
      'no-workers': 'API only: run no task workers (run `model-platform worker` processes instead)',
    },
    summary: 'start the HTTP server (and task workers, unless --no-workers)',
    details: 'SIGINT or SIGTERM stops taking connections, lets requests in flight finish, then exits.',
    run: (_args, flags) => traced(async () => (await import('./serve.command.ts')).runServe(flags)),
  },
  {
    words: ['worker'],
    minArguments: 0,
    maxArguments: 0,
    options: {
      config,
      port: 'serve /healthz, /readyz and /metrics on port N (none without it)',
      host: 'the address of --port (default: HOST, else 127.0.0.1)',
    },
    summary: 'run task workers only, to scale them apart from serve',
    details: 'Workers share the database with the API nodes (and REDIS_URL for BullMQ). SIGINT or SIGTERM hands running tasks back to the queue.',
    run: (_args, flags) => traced(async () => (await import('./worker.command.ts')).runWorker(flags)),
  },
  {
    words: ['migrate'],
    minArguments: 0,
    maxArguments: 0,
    options: storage,
    summary: 'apply pending database migrations',
    run: async (_args, flags) => (await import('./migrate.command.ts')).runMigrate(flags),
  },
  {
    words: ['keys', 'create'],
    minArguments: 0,
    maxArguments: 0,
    options: {
      config,
      name: 'a name to tell the key by',
      admin: 'the key may call the admin API (/admin)',
      policy: 'its limits, for example \'{"requestsPerMinute":60}\'',
    },
    summary: 'create an API key and print it once',
    run: async (args, flags) => (await import('./keys.command.ts')).runKeys(['create', ...args], flags),
  },
  {
    words: ['keys', 'list'],
    minArguments: 0,
    maxArguments: 0,
    options: storage,
    summary: 'list API keys (ids, names, state, policies; never secrets)',
    run: async (args, flags) => (await import('./keys.command.ts')).runKeys(['list', ...args], flags),
  },
  {
    words: ['keys', 'revoke'],
    argumentsUsage: '<id>',
    minArguments: 1,
    maxArguments: 1,
    options: storage,
    summary: 'revoke a key at once',
    run: async (args, flags) => (await import('./keys.command.ts')).runKeys(['revoke', ...args], flags),
  },
  {
    words: ['keys', 'policy'],
    argumentsUsage: '<id> <JSON>',
    minArguments: 2,
    maxArguments: 2,
    options: storage,
    summary: "replace a key's limits",
    details: `For example: model-platform keys policy <id> '{"requestsPerMinute":60,"quota":{"period":"day","calls":1000}}'`,
    run: async (args, flags) => (await import('./keys.command.ts')).runKeys(['policy', ...args], flags),
  },
  {
    words: ['keys', 'top-up'],
    argumentsUsage: '<id> <micro-units>',
    minArguments: 2,
    maxArguments: 2,
    options: storage,
    summary: "add to a key's prepaid credit",
    details: 'Adds in one step (calls running meanwhile keep their reservations). For example, 5 units: model-platform keys top-up <id> 5000000',
    run: async (args, flags) => (await import('./keys.command.ts')).runKeys(['top-up', ...args], flags),
  },
  {
    words: ['config', 'check'],
    minArguments: 0,
    maxArguments: 0,
    options: { config, probe: 'also ask every deployment of every model whether it answers, and what models it reports' },
    summary: 'validate the environment and the config file, then exit',
    details:
      'With --probe: a table of every deployment (reachable, latency, the model names the engine reports), a warning where an engine does not report the upstream model the platform sends it, and exit code 1 when a model has no reachable deployment. Nothing secret is printed.',
    run: async (_args, flags) => (await import('./config-check.command.ts')).runConfigCheck(flags),
  },
  {
    words: ['models', 'status'],
    minArguments: 0,
    maxArguments: 0,
    options: { url: 'the node to ask (default: http://127.0.0.1:$PORT, else port 8080)' },
    summary: "print each model's deployments and their health, as a running node sees them",
    details:
      'Health is kept by each node in its memory (cool-downs after failures), so this asks a running node through its admin API (GET /admin/deployments) with the admin key in MODEL_PLATFORM_ADMIN_KEY. Exit code 1 when the node cannot be asked or a model has no deployment that takes calls.',
    run: async (_args, flags) => (await import('./models-status.command.ts')).runModelsStatus(flags),
  },
  {
    words: ['pull'],
    argumentsUsage: '<model|hf://owner/repo/file[@revision]>',
    minArguments: 1,
    maxArguments: 1,
    options: { config },
    summary: 'download the model files a model of the catalog names (or one hf:// file) into the models directory',
    details:
      'Files go under MODEL_PLATFORM_MODELS_DIR (default <data dir>/models). HF_ENDPOINT sets the hub (a mirror), HF_TOKEN is sent for gated repositories. An interrupted download resumes; the size and SHA-256 the hub publishes are checked before the file takes its final name. A running server uses the file as soon as it is in place.',
    run: async (args, flags) => (await import('./pull.command.ts')).runPull(args[0] ?? '', flags),
  },
  {
    words: ['models', 'list'],
    minArguments: 0,
    maxArguments: 0,
    options: { config },
    summary: 'list the hf:// model files of the catalog: which are local, with their sizes',
    run: async (_args, flags) => (await import('./pull.command.ts')).runModelsList(flags),
  },
  {
    words: ['index', 'add'],
    argumentsUsage: '<url|file|dir|sitemap>...',
    minArguments: 1,
    maxArguments: Number.POSITIVE_INFINITY,
    options: {
      config,
      refresh: 'read again the pages indexed already',
      'base-url': 'list the files of a folder under URL instead of file:// (<dir>/a/b.html becomes URL/a/b.html)',
    },
    summary: 'add pages to the local search index',
    details:
      'HTML files go through the reader (Readability), so navigation and footers are left out. Without --base-url a file is listed under the http(s) address its page states, else its file:// URL; with it, under its URL below the folder named (a file named alone: its own folder). Exit code 1 when any item failed (the others are indexed all the same); Ctrl-C keeps what is stored, and running it again goes on.',
    run: async (args, flags) => (await import('./index.command.ts')).runIndex(['add', ...args], flags),
  },
  {
    words: ['index', 'remove'],
    argumentsUsage: '<url|prefix*>',
    minArguments: 1,
    maxArguments: 1,
    options: storage,
    summary: 'remove a page, or every page under a prefix',
    run: async (args, flags) => (await import('./index.command.ts')).runIndex(['remove', ...args], flags),
  },
  {
    words: ['knowledge', 'list'],
    argumentsUsage: '[key-id]',
    minArguments: 0,
    maxArguments: 1,
    options: storage,
    summary: "list the retrieval tool's knowledge bases, with their files and passage counts",
    details: "Files join a knowledge base when uploaded with purpose=retrieval and a knowledge_id; a key id lists only that key's.",
    run: async (args, flags) => (await import('./knowledge.command.ts')).runKnowledge(['list', ...args], flags),
  },
  {
    words: ['usage', 'report'],
    minArguments: 0,
    maxArguments: 0,
    options: {
      config,
      by: 'sum by UTC day (default), key, model or endpoint, or several: --by key,model',
      from: 'first UTC day (default: 29 days before --to)',
      to: 'last UTC day (default: today)',
      format: 'a table (default) or CSV',
    },
    summary: 'usage sums by UTC day, key, model or endpoint',
    run: async (args, flags) => (await import('./usage.command.ts')).runUsage(['report', ...args], flags),
  },
];
