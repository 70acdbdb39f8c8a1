import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cliCommands } from '../../src/cli/cli-commands.ts';
import { runCli, type CliResult } from '../helpers/cli-process.ts';

const packageVersion = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/** A refused command line: exit 2, one line saying why, a blank line, the usage; nothing on stdout, no stack. */
function assertRefused(result: CliResult, reason: RegExp): void {
  assert.equal(result.code, 2, result.stderr);
  assert.equal(result.stdout, '');
  const [first, blank, usage] = result.stderr.split('\n');
  assert.match(first ?? '', reason);
  assert.equal(blank, '');
  assert.match(usage ?? '', /^Usage: model-platform /);
  assert.doesNotMatch(result.stderr, /^\s+at /m, 'no stack trace');
}

describe('model-platform command line (spawned)', () => {
  let dataDir: string;
  before(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'model-platform-command-line-'));
  });
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('--version prints the package version; --help lists every command', async () => {
    const [version, help] = await Promise.all([runCli(['--version'], {}), runCli(['--help'], {})]);
    assert.equal(version.code, 0, version.stderr);
    assert.equal(version.stdout, `model-platform ${packageVersion}\n`);
    assert.equal(help.code, 0, help.stderr);
    for (const command of cliCommands) assert.match(help.stdout, new RegExp(`^  ${command.words.join(' ')} +\\S`, 'm'));
  });

  it('<command> --help describes each command and exits 0', async () => {
    const results = await Promise.all(cliCommands.map((command) => runCli([...command.words, '--help'], {})));
    results.forEach((result, index) => {
      const words = cliCommands[index]?.words.join(' ') ?? '';
      assert.equal(result.code, 0, `${words}: ${result.stderr}`);
      assert.ok(result.stdout.startsWith(`Usage: model-platform ${words}`), result.stdout);
    });
    const group = await runCli(['keys', '--help'], {});
    assert.equal(group.code, 0);
    assert.match(group.stdout, /^Usage: model-platform keys create .*\n {7}model-platform keys list/);
  });

  it('unknown options, commands and arguments: one line and the usage, exit code 2', async () => {
    const [flag, command, argument, missing] = await Promise.all([
      runCli(['serve', '--frob'], {}),
      runCli(['serv'], {}),
      runCli(['migrate', 'now'], {}),
      runCli(['keys', 'revoke'], {}),
    ]);
    assertRefused(flag, /^model-platform: serve takes no option '--frob'$/);
    assertRefused(command, /^model-platform: unknown command 'serv'$/);
    assertRefused(argument, /^model-platform: unexpected argument 'now'$/);
    assertRefused(missing, /^model-platform: keys revoke needs <id>$/);
  });

  it('keys list prints a header row; a bad policy is refused naming its field', async () => {
    const environment = { MODEL_PLATFORM_DATA_DIR: dataDir };
    const created = await runCli(['keys', 'create', '--name', 'reports'], environment);
    assert.equal(created.code, 0, created.stderr);
    const listed = await runCli(['keys', 'list'], environment);
    assert.equal(listed.code, 0, listed.stderr);
    const [header, row] = listed.stdout.split('\n');
    assert.match(header ?? '', /^id +created +state +name +scope +policy$/);
    // Columns line up under the header.
    assert.equal(row?.indexOf('reports'), header?.indexOf('name'));

    const [unknownField, nestedField] = await Promise.all([
      runCli(['keys', 'create', '--policy', '{"requestsPerMinut":60}'], environment),
      runCli(['keys', 'create', '--policy', '{"quota":{"period":"day","callz":5}}'], environment),
    ]);
    assert.equal(unknownField.code, 2);
    assert.match(unknownField.stderr, /'policy\.requestsPerMinut': is not a policy field/);
    assert.equal(nestedField.code, 2);
    assert.match(nestedField.stderr, /'policy\.quota\.callz': is not a policy field/);
    assert.doesNotMatch(unknownField.stderr + nestedField.stderr, /^\s+at /m);
  });

  // Before, the platform it had opened kept the process alive after the error: the timeout is the test.
  it('serve on a port in use: one line naming the problem, exit code 1, the process ends', { timeout: 120_000 }, async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = holder.address() as AddressInfo;
      const result = await runCli(['serve'], { MODEL_PLATFORM_DATA_DIR: join(dataDir, 'port-taken'), PORT: String(port), HOST: '127.0.0.1' });
      assert.equal(result.code, 1);
      assert.match(result.stderr, new RegExp(`^model-platform: listen EADDRINUSE: address already in use 127\\.0\\.0\\.1:${port}$`, 'm'));
      assert.doesNotMatch(result.stderr, /^\s+at /m, 'no stack trace');
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });
});
