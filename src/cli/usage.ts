import { type Command, OPTION_VALUES, OPTIONS, type OptionName } from "./command";
import { COMMANDS } from "./commands";

const PROGRAM = "npm run cli --";

/** Built from the command table, so the help can never disagree with what the parser accepts. */
export function usage(): string {
  const lines = COMMANDS.flatMap((command) => [`  ${synopsis(command)}`, `      ${command.summary}`]);
  return [
    `Usage: ${PROGRAM} <command> [options]`,
    "",
    "Manages organizations, their API keys and the chain writer's signers, reconciles a restored ledger with the",
    "chain, and reports every organization's usage and gas. Reads DATABASE_URL (and the rest of the service's",
    "configuration) from the environment and brings the schema up to date first.",
    "",
    "Commands:",
    ...lines,
    "  help [<command>]",
    "      Show this text, or one command's usage.",
    "",
    "--json prints machine-readable output on stdout. Errors go to stderr with exit code 1.",
  ].join("\n");
}

/** For mistakes outside any one command: a pointer to the help rather than all of it. */
export const HELP_HINT = `Run "${PROGRAM} help" to see the commands.`;

export function commandUsage(command: Command): string {
  return `Usage: ${PROGRAM} ${synopsis(command)}\n\n${command.summary}`;
}

function synopsis(command: Command): string {
  const operands = command.operands.map((operand) => `<${operand}>`);
  const required = command.requiredOptions.map(optionSyntax);
  const optional = command.optionalOptions.map((option) => `[${optionSyntax(option)}]`);
  return [command.name, ...operands, ...required, ...optional].join(" ");
}

function optionSyntax(option: OptionName): string {
  if (OPTIONS[option].type !== "string") return `--${option}`;
  return `--${option} <${OPTION_VALUES[option as keyof typeof OPTION_VALUES] ?? option}>`;
}
