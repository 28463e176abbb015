import { readFileSync } from "node:fs";

export interface Instruction {
  keyword: string;
  args: string;
}

export interface Stage {
  name: string | undefined;
  base: string;
  instructions: Instruction[];
}

/** A Dockerfile's instructions: comments dropped, continuation lines joined, keywords upper-cased. */
export function readInstructions(file: string): Instruction[] {
  const logicalLines = readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => !/^\s*#/.test(line))
    .join("\n")
    .replace(/\\\n/g, " ")
    .split("\n");
  return logicalLines
    .map((line) => line.trim())
    .filter((line) => line !== "")
    .map((line) => {
      const [keyword, ...rest] = line.split(/\s+/);
      return { keyword: keyword.toUpperCase(), args: rest.join(" ") };
    });
}

/** Instructions grouped by `FROM`, each stage with its `AS` name. */
export function readStages(file: string): Stage[] {
  const stages: Stage[] = [];
  for (const instruction of readInstructions(file)) {
    if (instruction.keyword === "FROM") {
      const [base, as, name] = instruction.args.split(/\s+/).filter((word) => !word.startsWith("--"));
      stages.push({ base, name: as?.toUpperCase() === "AS" ? name : undefined, instructions: [] });
    } else if (stages.length === 0) {
      if (instruction.keyword !== "ARG") throw new Error(`${file}: ${instruction.keyword} before the first FROM`);
    } else {
      stages.at(-1)!.instructions.push(instruction);
    }
  }
  return stages;
}

/** Exec form is a JSON array; shell form runs through `sh -c`, which splitting on blanks approximates here. */
export function commandWords(args: string): string[] {
  return args.startsWith("[") ? (JSON.parse(args) as string[]) : args.split(/\s+/);
}

/** The command of a `HEALTHCHECK [options] CMD ...` instruction. */
export function healthcheckWords(instruction: Instruction): string[] {
  const command = /(?:^|\s)CMD\s+(.*)$/s.exec(instruction.args);
  if (!command) throw new Error(`HEALTHCHECK without CMD: ${instruction.args}`);
  return commandWords(command[1]);
}

/** `ENV A=1 B=2` (and the old `ENV A 1`) as a map; later instructions win. */
export function stageEnvironment(stage: Stage): Record<string, string> {
  const env: Record<string, string> = {};
  for (const { keyword, args } of stage.instructions) {
    if (keyword !== "ENV") continue;
    if (!args.includes("=")) {
      const [name, ...value] = args.split(/\s+/);
      env[name] = value.join(" ");
      continue;
    }
    for (const match of args.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=("(?:[^"\\]|\\.)*"|\S*)/g)) {
      env[match[1]] = match[2].startsWith('"') ? (JSON.parse(match[2]) as string) : match[2];
    }
  }
  return env;
}

export function lastInstruction(stage: Stage, keyword: string): Instruction | undefined {
  return stage.instructions.filter((instruction) => instruction.keyword === keyword).at(-1);
}

/**
 * Whether a .dockerignore leaves `path` (relative to the build context) out of the context: a
 * pattern matches from the context's root, `*` within one path segment, and a matched folder takes
 * everything under it. Exceptions (`!pattern`) and `**` are not handled: the project's file has none.
 */
export function dockerIgnores(dockerignoreFile: string): (path: string) => boolean {
  const patterns = readFileSync(dockerignoreFile, "utf8")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"));
  if (patterns.some((pattern) => pattern.startsWith("!") || pattern.includes("**"))) throw new Error(`${dockerignoreFile}: a pattern this check does not read`);
  const expressions = patterns.map(
    (pattern) =>
      new RegExp(
        `^${pattern
          .replace(/^\//, "")
          .replace(/[.+?^${}()|[\]\\]/g, "\\$&")
          .replaceAll("*", "[^/]*")}(/|$)`,
      ),
  );
  return (path) => expressions.some((expression) => expression.test(path));
}
