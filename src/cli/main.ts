import { readFileSync } from 'node:fs';
import { parseCommandLine } from './parse-command-line.ts';

/**
 * The `model-platform` command line. Only the command that runs is imported (cli-commands.ts),
 * so help, the version and refused command lines answer at once. A refused command line is one
 * line saying why, then the usage, exit code 2.
 */
async function main(argv: readonly string[]): Promise<number> {
  const line = parseCommandLine(argv);
  switch (line.kind) {
    case 'help':
      console.log(line.text);
      return 0;
    case 'version':
      console.log(`model-platform ${packageVersion()}`);
      return 0;
    case 'refused':
      console.error(`model-platform: ${line.reason}\n\n${line.usage}`);
      return 2;
    case 'run':
      return line.command.run(line.args, line.flags);
  }
}

/** From package.json, two folders up both from src/cli and from the build's dist/cli. */
function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: unknown };
  return String(manifest.version);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  async (error: unknown) => {
    const { ConfigError } = await import('../core/config/config-error.ts');
    if (error instanceof ConfigError) console.error(`Configuration error: ${error.message}`);
    // A refusal of the system (a port in use, a folder that may not be written) says all in its message; its stack is Node's.
    else if (error instanceof Error && 'syscall' in error) console.error(`model-platform: ${error.message}`);
    else console.error(error);
    process.exitCode = 1;
  },
);
