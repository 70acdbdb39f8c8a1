import { parseArgs } from 'node:util';
import { cliCommands, type CliCommand } from './cli-commands.ts';
import { cliOptions, isCliOptionName, type CliOptionName, type CommandFlags } from './cli-flags.ts';
import { commandUsage, generalUsage, groupUsage, optionUsage, refusalUsage } from './cli-usage.ts';

/** What a command line asks for; `refused` carries one line saying why and the usage to show. */
export type CommandLine =
  | { readonly kind: 'run'; readonly command: CliCommand; readonly args: readonly string[]; readonly flags: CommandFlags }
  | { readonly kind: 'help'; readonly text: string }
  | { readonly kind: 'version' }
  | { readonly kind: 'refused'; readonly reason: string; readonly usage: string };

/** Options every command line may carry. */
const everywhere: readonly CliOptionName[] = ['help', 'version'];

/**
 * Reads `argv` (without node and the script). Options may come anywhere among the words; each
 * command takes only its own, so a misspelled or misplaced option is refused rather than ignored.
 */
export function parseCommandLine(argv: readonly string[]): CommandLine {
  // Not strict: every option becomes a token, and the refusals below name the command they are for.
  const { tokens } = parseArgs({ args: [...argv], options: cliOptions, strict: false, allowPositionals: true, tokens: true });
  const words: string[] = [];
  const options: Array<{ readonly name: string; readonly rawName: string; readonly value: string | undefined; readonly inlineValue: boolean | undefined }> = [];
  for (const token of tokens) {
    if (token.kind === 'positional') words.push(token.value);
    else if (token.kind === 'option') options.push(token);
  }
  const asks = (name: CliOptionName) => options.some((option) => option.name === name);

  const found = findCommand(words);
  if ('refused' in found) {
    // `model-platform --help` and `model-platform keys --help` are answers, not mistakes.
    if (asks('help') && found.complete) return { kind: 'help', text: found.usage };
    if (asks('version') && words.length === 0) return { kind: 'version' };
    const unknown = options.find((option) => !everywhere.includes(option.name as CliOptionName));
    const reason = unknown !== undefined && found.complete ? `unknown option '${unknown.rawName}'` : found.refused;
    return { kind: 'refused', reason, usage: found.usage };
  }
  const { command } = found;
  if (asks('help')) return { kind: 'help', text: commandUsage(command) };
  if (asks('version')) return { kind: 'version' };
  const usage = refusalUsage(command);

  const flags: Partial<Record<CliOptionName, string | boolean>> = Object.create(null);
  for (const option of options) {
    const name = option.name;
    if (!isCliOptionName(name) || !Object.hasOwn(command.options, name)) {
      return { kind: 'refused', reason: `${command.words.join(' ')} takes no option '${option.rawName}'`, usage };
    }
    if (cliOptions[name].type === 'boolean') {
      if (option.inlineValue === true) return { kind: 'refused', reason: `${option.rawName} takes no value`, usage };
      flags[name] = true;
    } else {
      if (option.value === undefined) return { kind: 'refused', reason: `${optionUsage(name)}: the value is missing`, usage };
      flags[name] = option.value;
    }
  }
  const args = words.slice(command.words.length);
  if (args.length < command.minArguments)
    return { kind: 'refused', reason: `${command.words.join(' ')} needs ${command.argumentsUsage ?? 'more arguments'}`, usage };
  if (args.length > command.maxArguments) return { kind: 'refused', reason: `unexpected argument '${args[command.maxArguments]}'`, usage };
  return { kind: 'run', command, args, flags: flags as CommandFlags };
}

type Found =
  | { readonly command: CliCommand }
  /** `complete`: the words named nothing wrong, there were just too few (no command, `keys` alone). */
  | { readonly refused: string; readonly usage: string; readonly complete: boolean };

function findCommand(words: readonly string[]): Found {
  const [first, second] = words;
  if (first === undefined) return { refused: 'a command is missing', usage: generalUsage(), complete: true };
  const group = cliCommands.filter((command) => command.words[0] === first);
  if (group.length === 0) return { refused: `unknown command '${first}'`, usage: generalUsage(), complete: false };
  const single = group.find((command) => command.words.length === 1);
  if (single !== undefined) return { command: single };
  const actions = group.map((command) => command.words[1]).join(', ');
  if (second === undefined) return { refused: `${first} needs one of: ${actions}`, usage: groupUsage(first), complete: true };
  const command = group.find((candidate) => candidate.words[1] === second);
  if (command === undefined) return { refused: `unknown ${first} action '${second}' (one of: ${actions})`, usage: groupUsage(first), complete: false };
  return { command };
}
