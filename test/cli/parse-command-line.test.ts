import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseCommandLine, type CommandLine } from '../../src/cli/parse-command-line.ts';

function refusal(line: CommandLine): string {
  assert.equal(line.kind, 'refused', JSON.stringify(line));
  return line.kind === 'refused' ? line.reason : '';
}

describe('parseCommandLine', () => {
  it('finds the command, its arguments and its options wherever they are placed', () => {
    const line = parseCommandLine(['keys', '--config', 'c.yaml', 'policy', 'abc', '{"requestsPerMinute":1}']);
    assert.equal(line.kind, 'run');
    if (line.kind !== 'run') return;
    assert.deepEqual(line.command.words, ['keys', 'policy']);
    assert.deepEqual(line.args, ['abc', '{"requestsPerMinute":1}']);
    assert.deepEqual({ ...line.flags }, { config: 'c.yaml' });

    const serve = parseCommandLine(['serve', '--no-workers', '--port=9000']);
    assert.equal(serve.kind, 'run');
    if (serve.kind === 'run') assert.deepEqual({ ...serve.flags }, { 'no-workers': true, port: '9000' });

    const index = parseCommandLine(['index', 'add', 'a', 'b', 'c', '--refresh']);
    assert.equal(index.kind, 'run');
    if (index.kind === 'run') assert.deepEqual(index.args, ['a', 'b', 'c']);
  });

  it('answers --help for the whole line, a group and each command; --version anywhere', () => {
    const general = parseCommandLine(['--help']);
    assert.equal(general.kind, 'help');
    if (general.kind === 'help') assert.match(general.text, /^Usage: model-platform <command>/);
    const group = parseCommandLine(['keys', '-h']);
    if (group.kind !== 'help') assert.fail(JSON.stringify(group));
    assert.match(group.text, /keys create .*\n.*keys list/);
    const command = parseCommandLine(['usage', 'report', '--help', '--frob']);
    if (command.kind !== 'help') assert.fail(JSON.stringify(command));
    assert.match(command.text, /^Usage: model-platform usage report .*\[--format table\|csv\]/);
    assert.match(command.text, /--by day\|key\|model\|endpoint {3}sum by UTC day/);
    assert.deepEqual(parseCommandLine(['--version']), { kind: 'version' });
    assert.deepEqual(parseCommandLine(['serve', '--version']), { kind: 'version' });
  });

  it('refuses, in one line naming what is wrong: unknown options, commands, actions and arguments', () => {
    assert.equal(refusal(parseCommandLine(['serve', '--frob'])), "serve takes no option '--frob'");
    assert.equal(refusal(parseCommandLine(['serve', '-x'])), "serve takes no option '-x'");
    // An option of another command is refused too, not ignored.
    assert.equal(refusal(parseCommandLine(['keys', 'list', '--refresh'])), "keys list takes no option '--refresh'");
    assert.equal(refusal(parseCommandLine(['--frob'])), "unknown option '--frob'");
    assert.equal(refusal(parseCommandLine([])), 'a command is missing');
    assert.equal(refusal(parseCommandLine(['frob', '--help'])), "unknown command 'frob'");
    assert.equal(refusal(parseCommandLine(['keys'])), 'keys needs one of: create, list, revoke, policy, top-up');
    assert.equal(refusal(parseCommandLine(['keys', 'frob'])), "unknown keys action 'frob' (one of: create, list, revoke, policy, top-up)");
    assert.equal(refusal(parseCommandLine(['keys', 'revoke'])), 'keys revoke needs <id>');
    assert.equal(refusal(parseCommandLine(['migrate', 'now'])), "unexpected argument 'now'");
    assert.equal(refusal(parseCommandLine(['keys', 'policy', 'a', '{}', 'b'])), "unexpected argument 'b'");
    assert.equal(refusal(parseCommandLine(['serve', '--config'])), '--config FILE: the value is missing');
    assert.equal(refusal(parseCommandLine(['serve', '--no-workers=yes'])), '--no-workers takes no value');
  });

  it('shows the usage of what was meant: the command, its group, or the whole line', () => {
    const serve = parseCommandLine(['serve', '--frob']);
    assert.ok(serve.kind === 'refused' && serve.usage.startsWith('Usage: model-platform serve [--config FILE]'));
    const keys = parseCommandLine(['keys', 'revoke']);
    assert.ok(keys.kind === 'refused' && /^Usage: model-platform keys create .*\n {7}model-platform keys list/.test(keys.usage));
    const unknown = parseCommandLine(['frob']);
    assert.ok(unknown.kind === 'refused' && unknown.usage.includes('Commands:'));
  });

  it('never makes a property of a name typed on the command line', () => {
    assert.equal(refusal(parseCommandLine(['serve', '--__proto__'])), "serve takes no option '--__proto__'");
    assert.equal(refusal(parseCommandLine(['serve', '--toString=1'])), "serve takes no option '--toString'");
    assert.equal(refusal(parseCommandLine(['constructor'])), "unknown command 'constructor'");
  });
});
