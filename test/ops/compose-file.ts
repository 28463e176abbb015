import { readFileSync } from "node:fs";

import { parse } from "yaml";

/** The parts of a Compose service the tests look at. */
export interface ComposeService {
  image?: string;
  /** Started only with `--profile NAME`; a service without profiles is always started. */
  profiles?: string[];
  command?: string | string[];
  /** Mounted at /run/secrets/NAME (short syntax) or at `target`. */
  secrets?: (string | { source: string; target?: string })[];
  build?: string | { context?: string; dockerfile?: string };
  environment?: Record<string, string | number | boolean | null> | string[];
  ports?: (string | number | { target: number; published?: string | number; host_ip?: string })[];
  volumes?: (string | { type?: string; source?: string; target: string })[];
  depends_on?: string[] | Record<string, { condition?: string }>;
  healthcheck?: { test?: string | string[]; disable?: boolean };
}

export interface ComposeFile {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
  secrets?: Record<string, { file?: string; environment?: string }>;
}

export interface PortBinding {
  hostIp: string | undefined;
  hostPort: string | undefined;
  containerPort: string;
}

/**
 * Reads a Compose file the way `docker compose` does: YAML merge keys resolved, then every
 * `${NAME:-default}` interpolated from `variables` (the shell's environment for Compose).
 */
export function readComposeFile(file: string, variables: Record<string, string> = {}): ComposeFile {
  const parsed = parse(readFileSync(file, "utf8"), { merge: true }) as unknown;
  const compose = interpolateTree(parsed, variables) as ComposeFile;
  if (typeof compose?.services !== "object" || compose.services === null) throw new Error(`${file} has no services`);
  return compose;
}

/**
 * Compose's interpolation: `$$` is a literal `$`; `${NAME}` and `$NAME` need the variable (a test
 * must not rely on Compose's silent empty string); `${NAME:-default}` also replaces an empty value,
 * `${NAME-default}` only a missing one. Other forms are refused rather than guessed.
 */
export function interpolate(text: string, variables: Record<string, string>): string {
  return text.replace(/\$\$|\$\{([^}]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (match, braced: string | undefined, bare: string | undefined) => {
    if (match === "$$") return "$";
    if (bare !== undefined) return required(bare, variables);
    const form = /^([A-Za-z_][A-Za-z0-9_]*)(?:(:?-)(.*))?$/s.exec(braced ?? "");
    if (!form) throw new Error(`unsupported interpolation ${match}`);
    const [, name, operator, fallback] = form;
    if (operator === undefined) return required(name, variables);
    if (fallback.includes("$")) throw new Error(`nested interpolation in ${match} is not supported here`);
    const value = variables[name];
    if (value === undefined || (operator === ":-" && value === "")) return fallback;
    return value;
  });
}

function required(name: string, variables: Record<string, string>): string {
  const value = variables[name];
  if (value === undefined) throw new Error(`\${${name}} has no default and is not set`);
  return value;
}

function interpolateTree(node: unknown, variables: Record<string, string>): unknown {
  if (typeof node === "string") return interpolate(node, variables);
  if (Array.isArray(node)) return node.map((item) => interpolateTree(item, variables));
  if (node !== null && typeof node === "object") {
    return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, interpolateTree(value, variables)]));
  }
  return node;
}

export function service(compose: ComposeFile, name: string): ComposeService {
  const found = compose.services[name];
  if (!found) throw new Error(`the Compose file has no service "${name}"`);
  return found;
}

/** A service's environment as the container sees it: strings, from either the map or the list form. */
export function environmentOf(svc: ComposeService): Record<string, string> {
  const env = svc.environment ?? {};
  if (Array.isArray(env)) return Object.fromEntries(env.map((entry) => entry.split(/=(.*)/s).slice(0, 2) as [string, string]));
  return Object.fromEntries(Object.entries(env).map(([name, value]) => [name, value === null ? "" : String(value)]));
}

/** Short syntax is [HOST_IP:][HOST_PORT:]CONTAINER_PORT[/PROTOCOL]. */
export function parsePort(entry: NonNullable<ComposeService["ports"]>[number]): PortBinding {
  if (typeof entry === "object") return { hostIp: entry.host_ip, hostPort: entry.published?.toString(), containerPort: String(entry.target) };
  const parts = String(entry)
    .replace(/\/\w+$/, "")
    .split(":");
  const containerPort = parts.pop() as string;
  const hostPort = parts.pop();
  return { hostIp: parts.length > 0 ? parts.join(":") : undefined, hostPort, containerPort };
}

/** The services this one waits for, with the condition of each (`service_started` when none is given). */
export function dependenciesOf(svc: ComposeService): Record<string, string> {
  const dependsOn = svc.depends_on ?? {};
  if (Array.isArray(dependsOn)) return Object.fromEntries(dependsOn.map((name) => [name, "service_started"]));
  return Object.fromEntries(Object.entries(dependsOn).map(([name, spec]) => [name, spec.condition ?? "service_started"]));
}

export function healthcheckCommand(svc: ComposeService): string[] {
  const test = svc.healthcheck?.test;
  if (typeof test === "string") return ["CMD-SHELL", test];
  if (!Array.isArray(test) || test.length < 2) throw new Error(`unusable healthcheck test: ${JSON.stringify(test)}`);
  return test;
}
