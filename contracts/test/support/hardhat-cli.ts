/**
 * Hardhat's command line as an operator runs it: a Hardhat node in a child process, and the deploy script
 * and the tasks run against it, each a child process of its own.
 */
import { expect } from "chai";
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import * as net from "node:net";
import * as path from "node:path";

import hre from "hardhat";

const CHILD_TIMEOUT_MS = 90_000;
const HARDHAT_PACKAGE_JSON = createRequire(import.meta.url).resolve("hardhat/package.json");
/** Hardhat's command line, run with this Node directly: through npx, each of the dozen runs would start npm first. */
const HARDHAT_CLI = path.join(
  path.dirname(HARDHAT_PACKAGE_JSON),
  (JSON.parse(readFileSync(HARDHAT_PACKAGE_JSON, "utf8")) as { bin: { hardhat: string } }).bin.hardhat,
);
/** The contract workspace, where an operator runs Hardhat. */
export const WORKSPACE = hre.config.paths.root;

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** The caller's environment without anything that would redirect the children to another chain, key or explorer. */
export function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of Object.keys(env)) {
    if (/^(REGISTRY_|ETHERSCAN_|SOURCIFY_|HARDHAT_NETWORK$|DEPLOYER_PRIVATE_KEY$|DEPLOYMENTS_DIR$)/.test(name)) delete env[name];
  }
  return { ...env, ...extra };
}

/**
 * `env` without what makes Hardhat believe it runs on a CI server, where it prints a stack trace under
 * every error: the output is then the one an operator sees.
 */
export function outsideCi(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const markers = ["CI", "CONTINUOUS_INTEGRATION", "BUILD_NUMBER", "RUN_ID", "GITHUB_ACTIONS", "NOW", "DEPLOYMENT_ID", "CODEBUILD_BUILD_NUMBER"];
  return Object.fromEntries(Object.entries(env).filter(([name]) => !markers.includes(name)));
}

export function runHardhat(args: string[], env: NodeJS.ProcessEnv): Promise<RunResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, [HARDHAT_CLI, ...args], { cwd: WORKSPACE, env, timeout: CHILD_TIMEOUT_MS }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

export function describeRun(result: RunResult): string {
  return `exit ${result.code}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`;
}

export function expectSuccess(result: RunResult): void {
  expect(result.code, describeRun(result)).to.equal(0);
}

export class HardhatNode {
  private output = "";

  private constructor(
    private readonly child: ChildProcess,
    readonly url: string,
  ) {
    child.stdout?.on("data", (chunk: Buffer) => (this.output += chunk.toString()));
    child.stderr?.on("data", (chunk: Buffer) => (this.output += chunk.toString()));
  }

  /** `hardhat node` on `port`, with `extraArgs` (e.g. `--chain-id`). */
  static async start(port: number, env: NodeJS.ProcessEnv, extraArgs: string[] = []): Promise<HardhatNode> {
    // Its own process group, so that stopping it also stops anything the node starts.
    const child = spawn(process.execPath, [HARDHAT_CLI, "node", "--port", String(port), ...extraArgs], {
      cwd: WORKSPACE,
      env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const node = new HardhatNode(child, `http://127.0.0.1:${port}`);
    await node.waitUntilAnswering(60_000);
    return node;
  }

  private async waitUntilAnswering(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (this.child.exitCode !== null) {
        throw new Error(`hardhat node exited with ${this.child.exitCode}:\n${this.output}`);
      }
      if (await this.answersChainId()) return;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    await this.stop();
    throw new Error(`hardhat node did not answer on ${this.url} within ${timeoutMs} ms:\n${this.output}`);
  }

  private async answersChainId(): Promise<boolean> {
    try {
      const response = await fetch(this.url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] }),
      });
      const body = (await response.json()) as { result?: string };
      return typeof body.result === "string";
    } catch {
      return false;
    }
  }

  async stop(): Promise<void> {
    const { child } = this;
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    process.kill(-child.pid, "SIGTERM");
    const timer = setTimeout(() => child.pid !== undefined && process.kill(-child.pid, "SIGKILL"), 5_000);
    await exited;
    clearTimeout(timer);
  }
}
