import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import * as http from "node:http";
import * as https from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";

import { JsonRpcProvider, Network, Wallet, getAddress } from "ethers";
import ts from "typescript";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";

import { type ChainNode, ChainNodeError, chainNodeSettings, readRecordedRegistry, startChainNode } from "../../docker/chain-node";
import { loadConfig, configVariableNames } from "../../src/config/app-config";
import { TicketRegistry__factory } from "../../typechain-types";
import { readTestServerTls } from "../support/test-ca";
import { freePort } from "../support/test-chain";
import { NODE_LIFELINE_ARGS } from "../../scripts/stack/owned-process";
import { commandWords, dockerIgnores, healthcheckWords, lastInstruction, readInstructions, readStages, stageEnvironment } from "./compose-dockerfile";
import { dependenciesOf, environmentOf, healthcheckCommand, parsePort, readComposeFile, service } from "./compose-file";

const ROOT = resolve(__dirname, "..", "..");
const COMPOSE_FILE = join(ROOT, "docker-compose.yml");
const SERVICE_DOCKERFILE = join(ROOT, "Dockerfile");
const CHAIN_DOCKERFILE = join(ROOT, "docker", "chain.Dockerfile");
/** Where both images put the project. */
const IMAGE_WORKDIR = "/app";
const APP_SERVICES = ["api", "worker"] as const;

const compose = readComposeFile(COMPOSE_FILE);
const stages = readStages(SERVICE_DOCKERFILE);
const runtime = stages.at(-1)!;

/** What the service's process sees in its container: the image's ENV under the service's environment. */
function containerEnvironment(name: string): Record<string, string> {
  return { ...stageEnvironment(runtime), ...environmentOf(service(compose, name)) };
}

interface LockedPackage {
  dev?: boolean;
  optional?: boolean;
  devOptional?: boolean;
}

/** Whether `npm ci` with these --omit kinds installs a package of the lockfile (npm's own rule). */
function installedWith(entry: LockedPackage, omitted: Set<string>): boolean {
  if (entry.dev && omitted.has("dev")) return false;
  if (entry.optional && omitted.has("optional")) return false;
  if (entry.devOptional && omitted.has("dev") && omitted.has("optional")) return false;
  return true;
}

function runNode(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  return new Promise((done) => {
    execFile(process.execPath, args, { env, timeout: 15_000 }, (error) => done(error ? (typeof error.code === "number" ? error.code : -1) : 0));
  });
}

describe("docker-compose.yml", () => {
  it("defines postgres, redis, the chain, one api and one worker, and Prometheus and Grafana in a profile", () => {
    const started = Object.entries(compose.services).filter(([, svc]) => svc.profiles === undefined);
    expect(started.map(([name]) => name).sort()).toEqual(["api", "chain", "postgres", "redis", "worker"]);
    expect(
      Object.keys(compose.services)
        .filter((name) => !started.some(([other]) => other === name))
        .sort(),
    ).toEqual(["grafana", "prometheus"]);
    expect(service(compose, "postgres").image).toBe("postgres:16-alpine");
    expect(service(compose, "redis").image).toBe("redis:7-alpine");
  });

  it("builds api and worker from the service's Dockerfile, and the chain from its own", () => {
    for (const name of APP_SERVICES) expect(service(compose, name).build).toEqual({ context: ".", dockerfile: "Dockerfile" });
    expect(service(compose, "chain").build).toEqual({ context: ".", dockerfile: "docker/chain.Dockerfile" });
  });

  it.each(["postgres", "redis", "chain"])("gives %s a healthcheck that api and worker wait for", (name) => {
    expect(service(compose, name).healthcheck?.disable ?? false).toBe(false);
    expect(healthcheckCommand(service(compose, name)).slice(1).join(" ")).not.toMatch(/^\s*$/);
    for (const app of APP_SERVICES) expect(dependenciesOf(service(compose, app))[name], `${app} on ${name}`).toBe("service_healthy");
  });

  it("leaves api and worker the image's liveness check", () => {
    for (const name of APP_SERVICES) expect(service(compose, name).healthcheck).toBeUndefined();
  });

  it("checks postgres with pg_isready on its database and redis with a ping", () => {
    expect(environmentOf(service(compose, "postgres")).POSTGRES_DB).toBe("ticket_registry");
    const pgCheck = healthcheckCommand(service(compose, "postgres")).slice(1).join(" ");
    expect(pgCheck).toMatch(/^pg_isready\b/);
    expect(pgCheck).toMatch(/-d\s+ticket_registry\b/);
    expect(healthcheckCommand(service(compose, "redis")).slice(1).join(" ")).toMatch(/^redis-cli\b.*\bping$/);
  });

  it("keeps postgres data in a named volume", () => {
    const mounts = (service(compose, "postgres").volumes ?? []).map((mount) =>
      typeof mount === "string" ? { source: mount.split(":")[0], target: mount.split(":")[1] } : mount,
    );
    const data = mounts.find((mount) => mount.target === "/var/lib/postgresql/data");
    expect(data, "no mount at /var/lib/postgresql/data").toBeDefined();
    expect(Object.keys(compose.volumes ?? {})).toContain(data!.source);
  });

  it("publishes every port on 127.0.0.1 only, the services' on their PORT, the api's operations port too", () => {
    const published: Record<string, string[]> = {};
    for (const [name, svc] of Object.entries(compose.services)) {
      for (const entry of svc.ports ?? []) {
        const binding = parsePort(entry);
        expect(binding.hostIp, `${name} publishes ${JSON.stringify(entry)} beyond loopback`).toBe("127.0.0.1");
        (published[name] ??= []).push(binding.containerPort);
      }
    }
    expect(published).toEqual({
      postgres: ["5432"],
      redis: ["6379"],
      chain: [String(chainNodeSettings(environmentOf(service(compose, "chain"))).port)],
      api: [String(loadConfig(containerEnvironment("api")).app.port), String(loadConfig(containerEnvironment("api")).app.opsPort)],
      worker: [String(loadConfig(containerEnvironment("worker")).app.port)],
      prometheus: ["9090"],
      grafana: ["3000"],
    });
  });

  describe.each(APP_SERVICES)("the %s service's environment", (name) => {
    const env = containerEnvironment(name);

    it("listens on every interface of the container (HOST 0.0.0.0): the published ports are what keep it on 127.0.0.1", () => {
      expect(loadConfig(env).app.host).toBe("0.0.0.0");
    });

    it("passes the service's configuration check in production mode, in its role", () => {
      expect(env.APP_MODE).toBe("production");
      const config = loadConfig(env);
      expect(config.app).toMatchObject({ mode: "production", role: name });
      expect(config.database.createIfMissing, "production databases are created by PostgreSQL's POSTGRES_DB").toBe(false);
    });

    it("sets only variables the service reads", () => {
      const known = new Set(configVariableNames());
      expect(Object.keys(env).filter((variable) => !known.has(variable))).toEqual([]);
    });

    it("points DATABASE_URL at the postgres service with its user, password and database", () => {
      const postgres = environmentOf(service(compose, "postgres"));
      const url = new URL(env.DATABASE_URL);
      expect(url.hostname).toBe("postgres");
      expect(url.port || "5432").toBe("5432");
      expect(decodeURIComponent(url.username)).toBe(postgres.POSTGRES_USER);
      expect(decodeURIComponent(url.password)).toBe(postgres.POSTGRES_PASSWORD);
      expect(decodeURIComponent(url.pathname.slice(1))).toBe(postgres.POSTGRES_DB);
    });

    it("points REDIS_URL at redis and CHAIN_RPC_URL at the chain's node", () => {
      const redis = new URL(env.REDIS_URL);
      expect([redis.hostname, redis.port || "6379"]).toEqual(["redis", "6379"]);
      const chain = new URL(env.CHAIN_RPC_URL);
      const node = chainNodeSettings(environmentOf(service(compose, "chain")));
      expect([chain.protocol, chain.hostname, chain.port]).toEqual(["http:", "chain", String(node.port)]);
      expect(node.hostname, "the node must listen beyond its container's loopback").toBe("0.0.0.0");
    });
  });

  it("gives signer keys to the worker only", () => {
    expect(loadConfig(containerEnvironment("worker")).chain.signerKeys.length).toBeGreaterThan(0);
    expect(containerEnvironment("api").SIGNER_PRIVATE_KEYS).toBeUndefined();
  });

  it("takes the database password and the dashboard credential from the shell, consistently", () => {
    const variables = { POSTGRES_USER: "ops", POSTGRES_PASSWORD: "Db0Secret", ADMIN_PASSWORD: "a-long-dashboard-password" };
    const custom = readComposeFile(COMPOSE_FILE, variables);
    expect(environmentOf(service(custom, "postgres"))).toMatchObject({ POSTGRES_USER: "ops", POSTGRES_PASSWORD: "Db0Secret" });
    for (const name of APP_SERVICES) {
      const env = environmentOf(service(custom, name));
      expect(new URL(env.DATABASE_URL)).toMatchObject({ username: "ops", password: "Db0Secret" });
      expect(loadConfig(env).admin.password).toBe(variables.ADMIN_PASSWORD);
    }
    expect(loadConfig(containerEnvironment("api")).admin.password, "no password, no dashboard").toBeNull();
  });
});

describe("the chain service", () => {
  const chainEnv = environmentOf(service(compose, "chain"));
  const workerEnv = containerEnvironment("worker");
  let deployments: string;
  let chain: ChainNode;
  let provider: JsonRpcProvider;

  beforeAll(async () => {
    deployments = mkdtempSync(join(tmpdir(), "compose-chain-"));
    // What the chain container runs, with the compose file's environment, on a free loopback port.
    chain = await startChainNode({
      ...withoutChainVariables(process.env),
      ...chainEnv,
      CHAIN_NODE_HOSTNAME: "127.0.0.1",
      CHAIN_NODE_PORT: String(await freePort()),
      DEPLOYMENTS_DIR: deployments,
    });
    provider = new JsonRpcProvider(chain.url, new Network("compose", 31337n), { staticNetwork: true });
  }, 240_000);

  afterAll(async () => {
    provider?.destroy();
    await chain?.stop();
    if (deployments) rmSync(deployments, { recursive: true, force: true });
  });

  it("deploys the registry at the REGISTRY_ADDRESS api and worker use", async () => {
    const record = JSON.parse(readFileSync(join(deployments, "localhost.json"), "utf8")) as { address: string; chainId: number };
    expect(record.chainId).toBe(31337);
    for (const name of APP_SERVICES) expect(getAddress(containerEnvironment(name).REGISTRY_ADDRESS), name).toBe(record.address);
    const registry = TicketRegistry__factory.connect(record.address, provider);
    expect(await registry.name()).toBe("Ticket Registry");
  });

  it("points the registry's tokenURI and contractURI at the api's PUBLIC_BASE_URL", async () => {
    const registry = TicketRegistry__factory.connect(workerEnv.REGISTRY_ADDRESS, provider);
    const publicBaseUrl = containerEnvironment("api").PUBLIC_BASE_URL;
    expect(publicBaseUrl).toBe("http://localhost:3000");
    expect(loadConfig(containerEnvironment("api")).app.publicBaseUrl).toBe(publicBaseUrl);
    expect(await registry.baseURI()).toBe(`${publicBaseUrl}/tokens/`);
    expect(await registry.contractURI()).toBe(`${publicBaseUrl}/tokens/collection`);
  });

  it("makes every key of the worker an operator of that registry", async () => {
    const registry = TicketRegistry__factory.connect(workerEnv.REGISTRY_ADDRESS, provider);
    const role = await registry.OPERATOR_ROLE();
    const signers = loadConfig(workerEnv).chain.signerKeys.map((key) => new Wallet(key).address);
    expect(signers.length).toBeGreaterThan(0);
    for (const signer of signers) expect(await registry.hasRole(role, signer), signer).toBe(true);
    expect(await registry.hasRole(role, Wallet.createRandom().address)).toBe(false);
  });

  it("refuses a deployment that landed anywhere but REGISTRY_ADDRESS", () => {
    const settings = chainNodeSettings({ ...chainEnv, DEPLOYMENTS_DIR: deployments, REGISTRY_ADDRESS: Wallet.createRandom().address });
    expect(() => readRecordedRegistry(settings)).toThrow(ChainNodeError);
    expect(() => readRecordedRegistry(settings)).toThrow(/fix REGISTRY_ADDRESS/);
  });

  describe("healthcheck", () => {
    /** The compose healthcheck, run as the container would but against this node and record. */
    function runHealthcheck(port: number, deploymentsDir: string): Promise<number> {
      const [kind, program, ...args] = healthcheckCommand(service(compose, "chain"));
      expect([kind, program]).toEqual(["CMD", "node"]);
      const script = args.map((arg) => arg.replaceAll(`${IMAGE_WORKDIR}/deployments/`, `${deploymentsDir}/`).replaceAll("127.0.0.1:8545", `127.0.0.1:${port}`));
      return runNode(script);
    }

    it("passes once the registry is recorded and the node answers", async () => {
      expect(await runHealthcheck(Number(new URL(chain.url).port), deployments)).toBe(0);
    });

    it("fails while the deployment record is missing", async () => {
      const empty = mkdtempSync(join(tmpdir(), "compose-chain-empty-"));
      try {
        expect(await runHealthcheck(Number(new URL(chain.url).port), empty)).not.toBe(0);
      } finally {
        rmSync(empty, { recursive: true, force: true });
      }
    });

    it("fails when no node answers", async () => {
      expect(await runHealthcheck(await freePort(), deployments)).not.toBe(0);
    });
  });
});

describe("the chain image", () => {
  const instructions = readInstructions(CHAIN_DOCKERFILE);

  it("installs locked dependencies before copying the project, then compiles", () => {
    const position = (test: (keyword: string, args: string) => boolean): number => {
      const index = instructions.findIndex(({ keyword, args }) => test(keyword, args));
      expect(index, "instruction missing from docker/chain.Dockerfile").toBeGreaterThanOrEqual(0);
      return index;
    };
    const copyManifests = position((keyword, args) => keyword === "COPY" && /\bpackage-lock\.json\b/.test(args));
    const install = position((keyword, args) => keyword === "RUN" && /\bnpm ci\b/.test(args));
    const copyProject = position((keyword, args) => keyword === "COPY" && /(^|\s)\.\s+\.\/?$/.test(args));
    const compile = position((keyword, args) => keyword === "RUN" && /\bnpm run compile\b/.test(args));
    expect([copyManifests < install, install < copyProject, copyProject < compile]).toEqual([true, true, true]);
  });

  it("runs the entrypoint tested above, as a user other than root", () => {
    const stage = readStages(CHAIN_DOCKERFILE).at(-1)!;
    const words = commandWords(lastInstruction(stage, "CMD")!.args);
    expect(words).toContain("docker/chain-entrypoint.ts");
    expect(readFileSync(join(ROOT, "docker", "chain-entrypoint.ts"), "utf8")).toContain("startChainNode(process.env");
    expect(lastInstruction(stage, "USER")?.args).toMatch(/^(?!root\b|0\b)\S+$/);
  });

  it("copies into the image every file of the project the entrypoint loads", () => {
    // Its imports, followed through the project's files, and the lifeline its chain node is preloaded with.
    const loaded = new Set<string>();
    const visit = (file: string) => {
      if (loaded.has(file)) return;
      loaded.add(file);
      for (const { fileName } of ts.preProcessFile(readFileSync(join(ROOT, file), "utf8"), true, true).importedFiles) {
        if (fileName.startsWith(".")) visit(relative(ROOT, resolve(ROOT, file, "..", `${fileName}.ts`)));
      }
    };
    visit("docker/chain-entrypoint.ts");
    for (const preload of NODE_LIFELINE_ARGS.filter((arg) => arg.endsWith(".ts"))) loaded.add(relative(ROOT, preload));
    expect([...loaded]).toEqual(expect.arrayContaining(["docker/chain-node.ts", "scripts/stack/chain-node.ts", "scripts/stack/exit-with-parent.ts"]));
    const ignored = dockerIgnores(join(ROOT, ".dockerignore"));
    expect([...loaded].filter(ignored)).toEqual([]);
    expect(ignored("node_modules/hardhat/package.json") && ignored("deployments/localhost.json")).toBe(true);
  });
});

describe("the service image (Dockerfile)", () => {
  it("builds in one stage and runs from another that copies only the build output", () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    const build = stages.find((stage) => stage.instructions.some(({ keyword, args }) => keyword === "RUN" && /\bnpm run build\b/.test(args)));
    expect(build, "no stage runs npm run build").toBeDefined();
    expect(build).not.toBe(runtime);
    expect(build!.instructions.some(({ keyword, args }) => keyword === "RUN" && /\bnpm ci\b/.test(args))).toBe(true);
    const copies = runtime.instructions.filter(({ keyword, args }) => keyword === "COPY" && args.includes("--from="));
    expect(copies.map(({ args }) => args)).toEqual([`--from=${build!.name} ${IMAGE_WORKDIR}/dist ./dist`]);
  });

  it("installs production dependencies only in the final stage", () => {
    const installs = runtime.instructions.filter(({ keyword, args }) => keyword === "RUN" && /\bnpm (ci|install|i)\b/.test(args));
    expect(installs.length).toBe(1);
    expect(installs[0].args).toMatch(/\bnpm ci\b.*--omit=dev\b/);
  });

  it("leaves TypeScript, ts-node and every development package out of the final stage", () => {
    const install = runtime.instructions.find(({ keyword, args }) => keyword === "RUN" && /\bnpm ci\b/.test(args))!.args;
    const omitted = new Set([...install.matchAll(/--omit=(\w+)/g)].map((match) => match[1]));
    const lock = JSON.parse(readFileSync(join(ROOT, "package-lock.json"), "utf8")) as { packages: Record<string, LockedPackage> };
    const installed = Object.entries(lock.packages).filter(([path, entry]) => path !== "" && installedWith(entry, omitted));
    const names = new Set(installed.map(([path]) => path.replace(/^.*node_modules\//, "")));
    for (const name of ["typescript", "ts-node", "hardhat", "solc", "@openzeppelin/contracts", "vitest"]) expect(names.has(name), name).toBe(false);
    expect(names.has("@nestjs/core")).toBe(true);
  });

  it("runs the Node major that .nvmrc names, in both images", () => {
    const major = readFileSync(join(ROOT, ".nvmrc"), "utf8").trim();
    for (const file of [SERVICE_DOCKERFILE, CHAIN_DOCKERFILE]) {
      for (const stage of readStages(file)) expect(stage.base, file).toMatch(new RegExp(`^node:${major}-`));
    }
  });

  it("runs in production mode as a user other than root", () => {
    expect(stageEnvironment(runtime).NODE_ENV).toBe("production");
    const user = lastInstruction(runtime, "USER")?.args;
    expect(user, "the final stage has no USER").toBeDefined();
    expect(user).not.toMatch(/^(root|0)(:|$)/);
    expect(lastInstruction(runtime, "WORKDIR")?.args).toBe(IMAGE_WORKDIR);
  });

  it("starts the file `nest build` produces for the entry file", () => {
    const words = commandWords(lastInstruction(runtime, "CMD")!.args);
    expect(words[0]).toBe("node");
    expect(words[1]).toBe(nestBuildOutput(nestEntrySource()));
  });

  it("names only compiled files that exist in the build for the CLI and the migrations", () => {
    const text = readFileSync(SERVICE_DOCKERFILE, "utf8");
    const named = [...new Set(text.match(/\bdist\/[\w/.-]+\.js\b/g))];
    expect(named).toEqual(expect.arrayContaining(["dist/src/main.js", "dist/src/cli/main.js", "dist/src/database/migrate.js"]));
    for (const file of named) expect(nestBuildOutput(join(ROOT, file.replace(/^dist\//, "").replace(/\.js$/, ".ts"))), file).toBe(file);
  });

  it("exposes the service's default ports (the API's and the operations port) and checks liveness on PORT", () => {
    const { port, opsPort } = loadConfig({}).app;
    expect(lastInstruction(runtime, "EXPOSE")?.args).toBe(`${port} ${opsPort}`);
    expect(healthcheckWords(lastInstruction(runtime, "HEALTHCHECK")!).join(" ")).toContain("/health/live");
  });

  describe("liveness check", () => {
    let server: http.Server | https.Server | undefined;

    afterEach(async () => {
      await new Promise((done) => (server ? server.close(done) : done(undefined)));
      server = undefined;
    });

    async function answering(status: number): Promise<{ port: number; paths: string[] }> {
      const paths: string[] = [];
      server = http.createServer((request, response) => {
        paths.push(request.url ?? "");
        response.statusCode = status;
        response.end("{}");
      });
      await new Promise<void>((done) => server!.listen(0, "127.0.0.1", done));
      return { port: (server.address() as AddressInfo).port, paths };
    }

    function runLiveness(port: number): Promise<number> {
      const [program, ...args] = healthcheckWords(lastInstruction(runtime, "HEALTHCHECK")!);
      expect(program).toBe("node");
      return runNode(args, { ...process.env, PORT: String(port) });
    }

    it("passes when /health/live answers 200 on PORT", async () => {
      const { port, paths } = await answering(200);
      expect(await runLiveness(port)).toBe(0);
      expect(paths).toEqual(["/health/live"]);
    });

    it("checks over HTTPS when TLS_CERT_FILE is set", async () => {
      const paths: string[] = [];
      const tls = readTestServerTls();
      server = https.createServer({ cert: tls.cert, key: tls.key }, (request, response) => {
        paths.push(request.url ?? "");
        response.end("{}");
      });
      await new Promise<void>((done) => server!.listen(0, "127.0.0.1", done));
      const port = (server.address() as AddressInfo).port;
      const [, ...args] = healthcheckWords(lastInstruction(runtime, "HEALTHCHECK")!);
      expect(await runNode(args, { ...process.env, PORT: String(port), TLS_CERT_FILE: "/run/tls/tls.crt" })).toBe(0);
      expect(await runNode(args, { ...process.env, PORT: String(port), TLS_CERT_FILE: "" })).not.toBe(0);
      expect(paths).toEqual(["/health/live"]);
    });

    it("fails when it answers 503 or nothing listens", async () => {
      const { port } = await answering(503);
      expect(await runLiveness(port)).not.toBe(0);
      expect(await runLiveness(await freePort())).not.toBe(0);
    });
  });
});

/** The TypeScript file Nest starts: nest-cli.json's entryFile, looked up the way `nest start` does. */
function nestEntrySource(): string {
  const nest = JSON.parse(readFileSync(join(ROOT, "nest-cli.json"), "utf8")) as { sourceRoot?: string; entryFile?: string };
  const entry = nest.entryFile ?? "main";
  const candidates = [join(ROOT, nest.sourceRoot ?? "src", `${entry}.ts`), join(ROOT, `${entry}.ts`)];
  const found = candidates.find((file) => existsSync(file));
  if (!found) throw new Error(`no entry file among ${candidates.join(", ")}`);
  return found;
}

/** Where `nest build` (tsc with nest-cli.json's tsconfig) writes the JavaScript of `source`, relative to the project. */
function nestBuildOutput(source: string): string {
  const nest = JSON.parse(readFileSync(join(ROOT, "nest-cli.json"), "utf8")) as { compilerOptions?: { tsConfigPath?: string } };
  const configFile = join(ROOT, nest.compilerOptions?.tsConfigPath ?? "tsconfig.build.json");
  const parsed = ts.getParsedCommandLineOfConfigFile(
    configFile,
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"));
      },
    },
  );
  if (!parsed) throw new Error(`cannot read ${configFile}`);
  if (!parsed.fileNames.map((file) => resolve(file)).includes(resolve(source))) throw new Error(`${relative(ROOT, source)} is not part of the build`);
  const output = ts.getOutputFileNames(parsed, source, false).find((file) => file.endsWith(".js"));
  if (!output) throw new Error(`the build emits no JavaScript for ${source}`);
  return relative(ROOT, output).split("\\").join("/");
}

/** The caller's environment without anything that would point the deploy script at another chain, key or record. */
function withoutChainVariables(env: NodeJS.ProcessEnv): Record<string, string | undefined> {
  return Object.fromEntries(
    Object.entries(env).filter(
      ([name]) => !/^(REGISTRY_|CHAIN_NODE_|DEPLOYER_PRIVATE_KEY$|DEPLOYMENTS_DIR$|HARDHAT_NETWORK$|LOCALHOST_RPC_URL$|PUBLIC_BASE_URL$)/.test(name),
    ),
  );
}
