import { CONFIG_SECTIONS, type ConfigSection } from "./config-descriptions";
import { readConfig } from "./config-schema";
import { type Env, EnvReader } from "./env-reader";
import { VariableParser } from "./variable-parser";

/** One variable as the operators' reference shows it: the schema's type and default, the description's meaning. */
export interface VariableReference {
  name: string;
  /** The default in Markdown ("none" when unset means nothing is set). */
  default: string;
  /** The plain default value for .env.example; null when it is none or depends on something else. */
  exampleValue: string | null;
  /** What it takes, in words; null for free text. */
  accepts: string | null;
  meaning: string;
}

export interface SectionReference {
  title: string;
  readBy: ConfigSection["readBy"];
  internal: boolean;
  variables: VariableReference[];
}

/** What the schema says of one variable: the type in words and the default it falls back to. */
interface VariableRead {
  accepts: string | null;
  fallback: unknown;
}

const NO_BOUND = Number.MAX_SAFE_INTEGER;

/**
 * A VariableParser that notes each variable's type and default as the schema asks for it, so that
 * the reference is written from the schema itself. A name read twice keeps its typed reading (the
 * schema may also look at a variable's raw value, as REQUIRE_HTTPS does at APP_ROLE's).
 */
class RecordingParser extends VariableParser {
  readonly reads = new Map<string, VariableRead>();

  override string(name: string, fallback: string): string {
    this.note(name, null, fallback);
    return super.string(name, fallback);
  }

  override optional(name: string): string | null {
    if (!this.reads.has(name)) this.reads.set(name, { accepts: null, fallback: null });
    return super.optional(name);
  }

  override integer(name: string, fallback: number, min: number, max = NO_BOUND): number {
    this.note(name, max === NO_BOUND ? `an integer, at least ${min}` : `an integer from ${min} to ${max}`, fallback);
    return super.integer(name, fallback, min, max);
  }

  override boolean(name: string, fallback: boolean): boolean {
    this.note(name, "`true` or `false` (`1` or `0`)", fallback);
    return super.boolean(name, fallback);
  }

  override decimal(name: string, fallback: number, min: number, max: number): number {
    this.note(name, `a number from ${min} to ${max}`, fallback);
    return super.decimal(name, fallback, min, max);
  }

  override oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
    this.note(
      name,
      `one of ${allowed
        .filter((value) => value !== "")
        .map((value) => `\`${value}\``)
        .join(", ")}`,
      fallback,
    );
    return super.oneOf(name, allowed, fallback);
  }

  override list(name: string): string[] {
    this.note(name, "a comma-separated list", null);
    return super.list(name);
  }

  override url(name: string, fallback: string | null, protocols: string[]): string | null {
    this.note(name, `a URL (${protocols.map((protocol) => `\`${protocol}\``).join(" or ")})`, fallback);
    return super.url(name, fallback, protocols);
  }

  override urlList(name: string, protocols: string[]): string[] {
    this.note(name, `comma-separated URLs (${protocols.map((protocol) => `\`${protocol}\``).join(" or ")})`, null);
    return super.urlList(name, protocols);
  }

  override gwei(name: string): bigint | null {
    this.note(name, "an amount of gwei, up to 9 decimals", null);
    return super.gwei(name);
  }

  override headers(name: string): Record<string, string> {
    this.note(name, "a JSON object of header names and string values", null);
    return super.headers(name);
  }

  override coinAmount(name: string): bigint {
    this.note(name, "an amount of the native coin, up to 18 decimals", null);
    return super.coinAmount(name);
  }

  private note(name: string, accepts: string | null, fallback: unknown): void {
    const known = this.reads.get(name);
    if (known === undefined || (known.accepts === null && known.fallback === null)) this.reads.set(name, { accepts, fallback });
  }
}

/** The variables readConfig reads, with their types and defaults, for the given environment. */
export function schemaReads(env: Env = {}): Map<string, VariableRead> {
  const parser = new RecordingParser(new EnvReader(env));
  readConfig(parser);
  return parser.reads;
}

/**
 * Every variable, section by section: the service's from the schema (read once as in development and
 * once as in production, so that a default that differs between them says so), `npm start`'s from
 * its description alone.
 */
export function configReference(): SectionReference[] {
  const development = schemaReads({});
  const production = schemaReads({ APP_MODE: "production" });
  return CONFIG_SECTIONS.map((section) => ({
    title: section.title,
    readBy: section.readBy,
    internal: section.internal ?? false,
    variables: Object.entries(section.variables).map(([name, description]) => {
      const read = section.readBy === "service" ? development.get(name) : undefined;
      const inProduction = section.readBy === "service" ? production.get(name) : undefined;
      const schemaDefault = read === undefined ? null : describeDefault(name, read.fallback, inProduction?.fallback);
      return {
        name,
        default: description.default ?? schemaDefault?.text ?? "none",
        exampleValue: description.default === undefined ? (schemaDefault?.value ?? null) : null,
        accepts: description.accepts ?? read?.accepts ?? null,
        meaning: description.meaning,
      };
    }),
  }));
}

/** The names the schema reads that no section describes, and the described ones it does not read. */
export function undescribedVariables(): { undescribed: string[]; unread: string[] } {
  const read = new Set([...schemaReads({}).keys(), ...schemaReads({ APP_MODE: "production" }).keys()]);
  const described = new Set(CONFIG_SECTIONS.filter((section) => section.readBy === "service").flatMap((section) => Object.keys(section.variables)));
  return {
    undescribed: [...read].filter((name) => !described.has(name)).sort(),
    unread: [...described].filter((name) => !read.has(name)).sort(),
  };
}

function describeDefault(name: string, fallback: unknown, productionFallback: unknown): { text: string; value: string | null } {
  const value = plainValue(fallback);
  const productionValue = plainValue(productionFallback);
  if (value !== productionValue) {
    return { text: `${markdownValue(name, productionValue)} in production, else ${markdownValue(name, value)}`, value: null };
  }
  return { text: markdownValue(name, value), value };
}

/** A default as the environment would spell it; null for none. */
function plainValue(fallback: unknown): string | null {
  if (fallback === null || fallback === undefined || fallback === "") return null;
  if (typeof fallback === "string" || typeof fallback === "number" || typeof fallback === "boolean") return String(fallback);
  throw new TypeError(`no plain form for the default ${JSON.stringify(fallback)}`);
}

function markdownValue(name: string, value: string | null): string {
  if (value === null) return "none";
  const bytes = Number(value);
  if (name.endsWith("_BYTES") && bytes % 1024 === 0)
    return `\`${value}\` (${bytes % (1024 * 1024) === 0 ? `${bytes / 1024 / 1024} MiB` : `${bytes / 1024} KiB`})`;
  return `\`${value}\``;
}
