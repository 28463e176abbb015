/** Variables by name, as the process received them or as a test gives them. */
export type Env = Record<string, string | undefined>;

/**
 * The one reader of the environment (process.env unless given another): raw strings by name. Every
 * name asked for is remembered, so that the names the service reads can be listed without keeping
 * a second list that could fall behind (see configVariableNames). Remembered per reader, not per
 * process: a reader of made-up names (a test's) adds nothing to the service's list.
 */
export class EnvReader {
  private readonly asked = new Set<string>();

  constructor(private readonly env: Env = process.env) {}

  /** The variable's value; null when it is unset or empty, so that an empty value means the default. */
  raw(name: string): string | null {
    this.asked.add(name);
    const value = this.env[name];
    return value === undefined || value === "" ? null : value;
  }

  /** The names this reader has been asked for, sorted. */
  namesRead(): string[] {
    return [...this.asked].sort();
  }
}
