import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parse } from "yaml";

const ROOT = path.resolve(__dirname, "..");

interface Healthcheck {
  test?: string | string[];
  disable?: boolean;
}

interface Service {
  image?: string;
  build?: string | { context?: string; dockerfile?: string };
  ports?: (string | number | { target: number; published?: string | number; host_ip?: string })[];
  environment?: Record<string, string> | string[];
  volumes?: (string | { type?: string; source?: string; target: string })[];
  healthcheck?: Healthcheck;
}

interface Compose {
  services?: Record<string, Service>;
  volumes?: Record<string, unknown>;
}

interface PortBinding {
  hostIp: string | undefined;
  hostPort: string | undefined;
  containerPort: string;
}

interface Instruction {
  keyword: string;
  args: string;
}

const compose = parse(fs.readFileSync(path.join(ROOT, "docker-compose.yml"), "utf8")) as Compose;
const services = compose.services ?? {};

function service(name: string): Service {
  const found = services[name];
  if (!found) throw new Error(`docker-compose.yml has no service "${name}"`);
  return found;
}

/** Short syntax is [HOST_IP:][HOST_PORT:]CONTAINER_PORT[/PROTOCOL]. */
function parsePort(entry: NonNullable<Service["ports"]>[number]): PortBinding {
  if (typeof entry === "object") {
    return { hostIp: entry.host_ip, hostPort: entry.published?.toString(), containerPort: String(entry.target) };
  }
  const parts = String(entry).replace(/\/\w+$/, "").split(":");
  const containerPort = parts.pop()!;
  const hostPort = parts.pop();
  const hostIp = parts.length > 0 ? parts.join(":") : undefined;
  return { hostIp, hostPort, containerPort };
}

function healthcheckCommand(healthcheck: Healthcheck): string {
  const { test } = healthcheck;
  if (typeof test === "string") return test;
  if (!Array.isArray(test) || test.length < 2) throw new Error(`unusable healthcheck test: ${JSON.stringify(test)}`);
  const [kind, ...command] = test;
  if (kind !== "CMD" && kind !== "CMD-SHELL") throw new Error(`healthcheck test starts with ${kind}`);
  return command.join(" ");
}

function environment(svc: Service): Record<string, string> {
  const env = svc.environment ?? {};
  if (!Array.isArray(env)) return env;
  return Object.fromEntries(env.map((entry) => entry.split(/=(.*)/s).slice(0, 2) as [string, string]));
}

function chainDockerfile(): string {
  const { build } = service("chain");
  if (!build) throw new Error("the chain service has no build section");
  const context = typeof build === "string" ? build : (build.context ?? ".");
  const dockerfile = typeof build === "string" ? "Dockerfile" : (build.dockerfile ?? "Dockerfile");
  return path.resolve(ROOT, context, dockerfile);
}

function dockerfileInstructions(file: string): Instruction[] {
  const text = fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => !/^\s*#/.test(line))
    .join("\n")
    .replace(/\\\n/g, " ");
  return text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "")
    .map((line) => {
      const [keyword, ...rest] = line.split(/\s+/);
      return { keyword: keyword.toUpperCase(), args: rest.join(" ") };
    });
}

/** Exec form is a JSON array; shell form runs through `sh -c`, which splitting on blanks approximates here. */
function commandWords(instruction: Instruction): string[] {
  return instruction.args.startsWith("[") ? (JSON.parse(instruction.args) as string[]) : instruction.args.split(/\s+/);
}

function optionValue(words: string[], option: string): string | undefined {
  const index = words.indexOf(option);
  return index === -1 ? undefined : words[index + 1];
}

describe("docker-compose.yml", () => {
  it("defines postgres, redis and the chain", () => {
    expect(Object.keys(services)).toEqual(expect.arrayContaining(["postgres", "redis", "chain"]));
    expect(service("postgres").image).toBe("postgres:16-alpine");
    expect(service("redis").image).toBe("redis:7-alpine");
  });

  it.each(["postgres", "redis", "chain"])("gives %s an enabled healthcheck", (name) => {
    const { healthcheck } = service(name);
    expect(healthcheck, `${name} has no healthcheck`).toBeDefined();
    expect(healthcheck!.disable ?? false).toBe(false);
    expect(healthcheckCommand(healthcheck!)).not.toMatch(/^\s*$/);
  });

  it("checks postgres with pg_isready on its database and redis with a ping", () => {
    expect(environment(service("postgres")).POSTGRES_DB).toBe("ticket_registry");
    const pgCheck = healthcheckCommand(service("postgres").healthcheck!);
    expect(pgCheck).toMatch(/^pg_isready\b/);
    expect(pgCheck).toMatch(/-d\s+ticket_registry\b/);
    expect(healthcheckCommand(service("redis").healthcheck!)).toMatch(/^redis-cli\b.*\bping$/);
  });

  it("keeps postgres data in a named volume", () => {
    const mounts = service("postgres").volumes ?? [];
    const dataMount = mounts
      .map((mount) => {
        if (typeof mount !== "string") return mount;
        const [source, target] = mount.split(":");
        return { source, target };
      })
      .find((mount) => mount.target === "/var/lib/postgresql/data");
    expect(dataMount, "no mount at /var/lib/postgresql/data").toBeDefined();
    expect(dataMount!.source).toMatch(/^[a-zA-Z0-9][\w.-]*$/);
    expect(Object.keys(compose.volumes ?? {})).toContain(dataMount!.source);
  });

  it("publishes every port on 127.0.0.1 only", () => {
    const published: Record<string, string[]> = {};
    for (const [name, svc] of Object.entries(services)) {
      for (const entry of svc.ports ?? []) {
        const binding = parsePort(entry);
        expect(binding.hostIp, `${name} publishes ${JSON.stringify(entry)} beyond loopback`).toBe("127.0.0.1");
        (published[name] ??= []).push(binding.containerPort);
      }
    }
    expect(published).toMatchObject({ postgres: ["5432"], redis: ["6379"], chain: ["8545"] });
  });
});

describe("the chain image", () => {
  it("builds from a Dockerfile that exists", () => {
    expect(fs.existsSync(chainDockerfile()), `${chainDockerfile()} is missing`).toBe(true);
  });

  it("installs locked dependencies before copying the project, then compiles", () => {
    const instructions = dockerfileInstructions(chainDockerfile());
    const position = (predicate: (instruction: Instruction) => boolean): number => {
      const index = instructions.findIndex(predicate);
      expect(index, "instruction missing from the Dockerfile").toBeGreaterThanOrEqual(0);
      return index;
    };
    const copyManifests = position((i) => i.keyword === "COPY" && /\bpackage(-lock|\*)?\.json\b/.test(i.args));
    const install = position((i) => i.keyword === "RUN" && /\bnpm ci\b/.test(i.args));
    const copyProject = position((i) => i.keyword === "COPY" && /^\.\s+\.\/?$/.test(i.args));
    const compile = position((i) => i.keyword === "RUN" && /\bhardhat compile\b/.test(i.args));
    expect(copyManifests).toBeLessThan(install);
    expect(install).toBeLessThan(copyProject);
    expect(copyProject).toBeLessThan(compile);
  });

  it("keeps the host's node_modules and build output out of the image", () => {
    const ignored = fs.readFileSync(path.join(ROOT, ".dockerignore"), "utf8").split("\n").map((line) => line.trim());
    expect(ignored).toEqual(expect.arrayContaining(["node_modules", "artifacts", "cache", "typechain-types"]));
  });

  it("runs a Hardhat node on 0.0.0.0 port 8545", () => {
    const commands = dockerfileInstructions(chainDockerfile()).filter((i) => i.keyword === "CMD");
    expect(commands.length, "the Dockerfile has no CMD").toBeGreaterThan(0);
    const words = commandWords(commands.at(-1)!);
    const hardhat = words.indexOf("hardhat");
    expect(hardhat, `CMD does not run hardhat: ${words.join(" ")}`).toBeGreaterThanOrEqual(0);
    expect(words[hardhat + 1]).toBe("node");
    expect(optionValue(words, "--hostname")).toBe("0.0.0.0");
    // Hardhat's node listens on 8545 unless told otherwise.
    expect(optionValue(words, "--port") ?? "8545").toBe("8545");
  });
});

describe("the chain healthcheck", () => {
  let server: http.Server | undefined;

  afterEach(async () => {
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
    server = undefined;
  });

  /** A stand-in for the node that answers JSON-RPC requests with `reply`. */
  async function fakeNode(reply: (request: { method?: string }) => object): Promise<number> {
    server = http.createServer((req, res) => {
      let body = "";
      req.on("data", (chunk: Buffer) => (body += chunk.toString()));
      req.on("end", () => {
        let request: { method?: string } = {};
        try {
          request = JSON.parse(body) as { method?: string };
        } catch {
          // An unparsable request gets the reply to a request without a method.
        }
        res.setHeader("content-type", "application/json");
        res.end(JSON.stringify(reply(request)));
      });
    });
    await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
    return (server!.address() as AddressInfo).port;
  }

  /** Runs the healthcheck as the container would, against `port` instead of 8545. */
  function runHealthcheck(port: number): Promise<number> {
    const test = service("chain").healthcheck!.test;
    expect(Array.isArray(test) && test[0] === "CMD" && test[1] === "node").toBe(true);
    const args = (test as string[]).slice(2).map((arg) => arg.replaceAll("127.0.0.1:8545", `127.0.0.1:${port}`));
    expect(args.join(" ")).toContain(`127.0.0.1:${port}`);
    return new Promise((resolve) => {
      execFile(process.execPath, args, { timeout: 15_000 }, (error) => {
        resolve(error ? (typeof error.code === "number" ? error.code : -1) : 0);
      });
    });
  }

  it("passes when the node answers eth_chainId", async () => {
    const port = await fakeNode((request) =>
      request.method === "eth_chainId"
        ? { jsonrpc: "2.0", id: 1, result: "0x7a69" }
        : { jsonrpc: "2.0", id: 1, error: { code: -32601, message: "Method not found" } },
    );
    expect(await runHealthcheck(port)).toBe(0);
  });

  it("fails when the node answers with an error", async () => {
    const port = await fakeNode(() => ({ jsonrpc: "2.0", id: 1, error: { code: -32603, message: "starting" } }));
    expect(await runHealthcheck(port)).not.toBe(0);
  });

  it("fails when nothing listens", async () => {
    const port = await fakeNode(() => ({}));
    await new Promise((resolve) => server!.close(resolve));
    server = undefined;
    expect(await runHealthcheck(port)).not.toBe(0);
  });
});
