/**
 * The service's configuration: read from the environment once, validated, typed. Nothing else in
 * the service reads `process.env` (EnvReader is the one reader); this file is what the rest of the
 * service imports.
 */
import { configProblems } from "./config-checks";
import { readConfig } from "./config-schema";
import type { AppConfig } from "./config-types";
import { type Env, EnvReader } from "./env-reader";
import { VariableParser } from "./variable-parser";

export type { AppConfig, AppMode, AppRole, ChainConfig, LogFormatSetting } from "./config-types";
export { DEFAULT_DATABASE_URL, DEFAULT_REDIS_URL } from "./config-schema";

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

/** The configuration from `env` (process.env when none is given); a ConfigError lists every problem at once. */
export function loadConfig(env?: Env): AppConfig {
  const parse = new VariableParser(new EnvReader(env));
  const config = readConfig(parse);
  const problems = [...parse.problems, ...configProblems(config)];
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

/**
 * The names of the environment variables the service reads, so that a deployment file setting any
 * other (a typo, a variable that was removed) can be caught.
 */
export function configVariableNames(): string[] {
  // Names are recorded as they are read, before validation: an empty environment names them all.
  const reader = new EnvReader({});
  readConfig(new VariableParser(reader));
  return reader.namesRead();
}
