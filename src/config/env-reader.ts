/** Variables by name, as the process received them or as a test gives them. */
export type Env = Record<string, string | undefined>;

/** Every variable name any EnvReader has been asked for: see configVariableNames. */
const VARIABLES_READ = new Set<string>();

/**
 * The one reader of the environment (process.env unless given another): raw strings by name. Every
 * name asked for is remembered, so that the names the service reads can be listed without keeping
 * a second list that could fall behind.
 */
export class EnvReader {
  constructor(private readonly env: Env = process.env) {}

  /** The variable's value; null when it is unset or empty, so that an empty value means the default. */
  raw(name: string): string | null {
    VARIABLES_READ.add(name);
    const value = this.env[name];
    return value === undefined || value === "" ? null : value;
  }
}

/** The names every EnvReader so far has been asked for, sorted. */
export function variableNamesRead(): string[] {
  return [...VARIABLES_READ].sort();
}
