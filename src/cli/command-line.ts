import { parseArgs } from "node:util";

import { UsageError } from "./cli-errors";
import { type Command, type CommandInput, OPTIONS, type OptionName, type StringOptionName } from "./command";
import { COMMANDS } from "./commands";
import { commandUsage, HELP_HINT, usage } from "./usage";

export type Invocation = { kind: "help"; text: string } | { kind: "run"; command: Command; input: CommandInput };

type Values = Partial<Record<StringOptionName, string>> & { json?: boolean; csv?: boolean; help?: boolean };

export function parseCommandLine(args: readonly string[]): Invocation {
  const { values, positionals } = parseWords(args);
  if (positionals[0] === "help") return { kind: "help", text: positionals.length > 1 ? commandUsage(findCommand(positionals.slice(1))) : usage() };
  if (positionals.length === 0) {
    if (values.help) return { kind: "help", text: usage() };
    throw new UsageError("missing command", usage());
  }
  const command = findCommand(positionals);
  if (values.help) return { kind: "help", text: commandUsage(command) };
  return { kind: "run", command, input: commandInput(command, positionals.slice(2), values) };
}

function parseWords(args: readonly string[]): { values: Values; positionals: string[] } {
  try {
    return parseArgs({ args: [...args], options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    // parseArgs reports the user's mistakes (unknown option, missing value) as coded TypeErrors.
    if (isParseArgsError(error)) throw new UsageError(error.message, HELP_HINT);
    throw error;
  }
}

function isParseArgsError(error: unknown): error is Error {
  return error instanceof Error && String((error as { code?: unknown }).code).startsWith("ERR_PARSE_ARGS");
}

function findCommand(words: readonly string[]): Command {
  const name = words.slice(0, 2).join(" ");
  const command = COMMANDS.find((candidate) => candidate.name === name);
  if (command) return command;
  const actions = COMMANDS.filter((candidate) => candidate.name.startsWith(`${words[0]} `)).map((candidate) => candidate.name.split(" ")[1]);
  if (words.length === 1 && actions.length > 0) throw new UsageError(`"${words[0]}" needs one of: ${actions.join(", ")}`, HELP_HINT);
  throw new UsageError(`unknown command "${name}"`, HELP_HINT);
}

function commandInput(command: Command, operands: readonly string[], values: Values): CommandInput {
  const fail = (message: string): never => {
    throw new UsageError(message, commandUsage(command));
  };
  checkOperandCount(command, operands, fail);
  checkOptionsAccepted(command, values, fail);
  const required: Record<string, string> = {};
  command.operands.forEach((operand, index) => (required[operand] = nonBlank(operands[index], `<${operand}>`, fail)));
  for (const option of command.requiredOptions) {
    required[option] = nonBlank(values[option] ?? fail(`missing --${option} <${option}>`), `--${option}`, fail);
  }
  const optional: CommandInput["optional"] = {};
  for (const option of command.optionalOptions) if (isStringOption(option)) optional[option] = values[option];
  return { required, optional, json: values.json === true, flags: { csv: values.csv === true } };
}

function isStringOption(option: OptionName): option is StringOptionName {
  return OPTIONS[option].type === "string";
}

function checkOperandCount(command: Command, operands: readonly string[], fail: (message: string) => never): void {
  const missing = command.operands.slice(operands.length);
  if (missing.length > 0) fail(`missing ${missing.map((operand) => `<${operand}>`).join(" ")}`);
  const extra = operands.slice(command.operands.length);
  if (extra.length > 0) fail(`unexpected argument "${extra[0]}"`);
}

function checkOptionsAccepted(command: Command, values: Values, fail: (message: string) => never): void {
  const accepted: readonly string[] = [...command.requiredOptions, ...command.optionalOptions, "help"];
  const refused = (Object.keys(values) as OptionName[]).find((option) => !accepted.includes(option));
  if (refused) fail(`${command.name} does not take --${refused}`);
}

/** A blank ticketeerId or name would make an organization no request can ever name. */
function nonBlank(value: string, what: string, fail: (message: string) => never): string {
  return value.trim() === "" ? fail(`${what} must not be blank`) : value;
}
