/**
 * A local stand-in of the two explorer APIs that registry:verify submits to: Etherscan's v2 API
 * (`/etherscan/v2/api`) and Sourcify's v2 API (`/sourcify/server/v2/...`). Each answers as the real one
 * does (submit, an id back, a status that is pending first and final next), and each checks what it
 * receives against the build deployed instead of recompiling it: the exact sources, the compiler and its
 * settings, the constructor arguments, the address. Anything that differs fails the verification, with
 * the differences in the failure's message.
 */
import { randomBytes, randomUUID } from "node:crypto";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import { isDeepStrictEqual } from "node:util";

export type Explorer = "etherscan" | "sourcify";

/** What the stand-in accepts: the deployment and the build it was made from. */
export interface ExpectedVerification {
  chainId: string;
  address: string;
  creationTxHash: string;
  /** The fully qualified name as solc knows it (`project/src/TicketRegistry.sol:TicketRegistry`). */
  contractIdentifier: string;
  /** `v0.8.37+commit.…`, as both APIs take it. */
  compilerVersion: string;
  /** The build's settings that shape the bytecode: what is submitted must have these and no others. */
  settings: Record<string, unknown>;
  /** Every source of the build, by input source name: whatever is submitted must be one of them, unchanged. */
  buildSources: Record<string, string>;
  /** The sources the contract is compiled from: each must be submitted. */
  contractSources: string[];
  /** ABI-encoded, without 0x, as Etherscan takes them. */
  constructorArguments: string;
  etherscanApiKey: string;
}

export interface Submission {
  explorer: Explorer;
  /** Empty when the submission matched the deployment and its build. */
  problems: string[];
  /** The input source names submitted. */
  sources: string[];
  settings: Record<string, unknown>;
}

interface Job {
  explorer: Explorer;
  problems: string[];
  polls: number;
  startedAt: string;
}

interface StandardJsonInput {
  language?: unknown;
  sources?: Record<string, { content?: unknown }>;
  settings?: Record<string, unknown>;
}

interface Reply {
  status: number;
  body: unknown;
}

/**
 * What the output holds, and the names imports go by (the sources themselves are compared by name):
 * neither changes the bytecode.
 */
const IGNORED_SETTINGS = ["outputSelection", "remappings"];

const NOT_VERIFIED_ON_ETHERSCAN = [{ SourceCode: "", ABI: "Contract source code not verified", ContractName: "", CompilerVersion: "" }];

export class ExplorerStandIn {
  readonly submissions: Submission[] = [];
  private readonly verified = new Set<Explorer>();
  private readonly jobs = new Map<string, Job>();

  private constructor(
    private readonly server: http.Server,
    readonly url: string,
    private readonly expected: ExpectedVerification,
  ) {}

  static async start(expected: ExpectedVerification): Promise<ExplorerStandIn> {
    const server = http.createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    const standIn = new ExplorerStandIn(server, `http://127.0.0.1:${port}`, expected);
    server.on("request", (request: http.IncomingMessage, response: http.ServerResponse) => void standIn.handle(request, response));
    return standIn;
  }

  get etherscanApiUrl(): string {
    return `${this.url}/etherscan/v2/api`;
  }

  get sourcifyApiUrl(): string {
    return `${this.url}/sourcify/server`;
  }

  isVerifiedOn(explorer: Explorer): boolean {
    return this.verified.has(explorer);
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    let reply: Reply;
    try {
      const url = new URL(request.url ?? "/", this.url);
      const body = await readBody(request);
      reply = url.pathname === "/etherscan/v2/api" ? this.etherscan(request.method, url, body) : this.sourcify(request.method, url.pathname, body);
    } catch (error) {
      reply = { status: 500, body: { message: error instanceof Error ? error.message : String(error) } };
    }
    response.writeHead(reply.status, { "content-type": "application/json" });
    response.end(JSON.stringify(reply.body));
  }

  // Etherscan answers HTTP 200 with {status, message, result}, status "1" for OK and "0" otherwise.
  private etherscan(method: string | undefined, url: URL, body: string): Reply {
    const query = url.searchParams;
    const notOk = (result: string): Reply => ({ status: 200, body: { status: "0", message: "NOTOK", result } });
    const ok = (result: unknown): Reply => ({ status: 200, body: { status: "1", message: "OK", result } });
    if (query.get("apikey") !== this.expected.etherscanApiKey) return notOk("Invalid API Key (#err2)|1");
    if (query.get("chainid") !== this.expected.chainId) {
      return notOk(
        "Missing or unsupported chainid parameter (required for v2 api), please see https://api.etherscan.io/v2/chainlist for the list of supported chainids",
      );
    }
    const action = `${method} ${query.get("module")}.${query.get("action")}`;
    switch (action) {
      case "GET contract.getsourcecode": {
        const isThisContract = sameAddress(query.get("address"), this.expected.address);
        if (!isThisContract || !this.verified.has("etherscan")) return ok(NOT_VERIFIED_ON_ETHERSCAN);
        return ok([{ SourceCode: "{{...}}", ABI: "[]", ContractName: "TicketRegistry", CompilerVersion: this.expected.compilerVersion }]);
      }
      case "POST contract.verifysourcecode": {
        const form = new URLSearchParams(body);
        if (this.verified.has("etherscan") && sameAddress(form.get("contractaddress"), this.expected.address)) {
          return notOk("Contract source code already verified");
        }
        const problems = [
          ...differences("contract address", form.get("contractaddress")?.toLowerCase(), this.expected.address.toLowerCase()),
          ...differences("code format", form.get("codeformat"), "solidity-standard-json-input"),
          ...differences("contract name", form.get("contractname"), this.expected.contractIdentifier),
          ...differences("compiler version", form.get("compilerversion"), this.expected.compilerVersion),
          ...differences("constructor arguments", form.get("constructorArguments"), this.expected.constructorArguments),
        ];
        const input = parseInput(form.get("sourceCode"));
        return ok(this.submit("etherscan", [...problems, ...this.inputProblems(input)], input, () => randomBytes(25).toString("hex")));
      }
      case "GET contract.checkverifystatus": {
        const job = this.jobs.get(query.get("guid") ?? "");
        if (!job || job.explorer !== "etherscan") return notOk("Unable to locate Guid");
        if (job.polls++ === 0) return notOk("Pending in queue");
        if (job.problems.length > 0) return notOk(`Fail - Unable to verify. ${job.problems.join("; ")}`);
        this.verified.add("etherscan");
        return ok("Pass - Verified");
      }
      default:
        return notOk(`Unknown action ${action}`);
    }
  }

  // Sourcify answers errors with an HTTP status and {customCode, message, errorId}.
  private sourcify(method: string | undefined, pathname: string, body: string): Reply {
    const error = (status: number, customCode: string, message: string): Reply => ({ status, body: { customCode, message, errorId: randomUUID() } });
    const route = /^\/sourcify\/server\/v2\/(contract|verify)\/([^/]+)(?:\/([^/]+))?$/.exec(pathname);
    if (!route) return error(404, "not_found", `No route ${method} ${pathname}`);
    const [, resource, first, second] = route;

    if (method === "GET" && resource === "contract" && second !== undefined) {
      const isThisContract = first === this.expected.chainId && sameAddress(second, this.expected.address);
      const match = isThisContract && this.verified.has("sourcify") ? "exact_match" : null;
      return { status: match ? 200 : 404, body: { match, creationMatch: match, runtimeMatch: match, chainId: first, address: second } };
    }
    if (method === "POST" && resource === "verify" && second !== undefined) {
      if (first !== this.expected.chainId) return error(400, "unsupported_chain", `Chain ${first} is not supported for verification`);
      const request = JSON.parse(body) as {
        stdJsonInput?: StandardJsonInput;
        contractIdentifier?: unknown;
        compilerVersion?: unknown;
        creationTransactionHash?: unknown;
      };
      if (request.stdJsonInput === undefined) return error(400, "invalid_parameter", "stdJsonInput is required");
      if (this.verified.has("sourcify") && sameAddress(second, this.expected.address)) {
        return error(409, "already_verified", `Contract ${second} on chain ${first} is already verified`);
      }
      const problems = [
        ...differences("contract address", second.toLowerCase(), this.expected.address.toLowerCase()),
        ...differences("contract identifier", request.contractIdentifier, this.expected.contractIdentifier),
        ...differences("compiler version", request.compilerVersion, this.expected.compilerVersion),
        ...differences("creation transaction", request.creationTransactionHash, this.expected.creationTxHash),
        ...this.inputProblems(request.stdJsonInput),
      ];
      return { status: 202, body: { verificationId: this.submit("sourcify", problems, request.stdJsonInput, randomUUID) } };
    }
    if (method === "GET" && resource === "verify" && second === undefined) {
      const job = this.jobs.get(first);
      if (!job || job.explorer !== "sourcify") return error(404, "not_found", `No verification job ${first}`);
      const contract = { chainId: this.expected.chainId, address: this.expected.address };
      const status = { verificationId: first, jobStartTime: job.startedAt };
      if (job.polls++ === 0)
        return { status: 200, body: { ...status, isJobCompleted: false, contract: { ...contract, match: null, creationMatch: null, runtimeMatch: null } } };
      const finished = { ...status, isJobCompleted: true, jobFinishTime: new Date().toISOString() };
      if (job.problems.length > 0) {
        return {
          status: 200,
          body: {
            ...finished,
            error: { customCode: "no_match", message: `The onchain and recompiled bytecodes don't match: ${job.problems.join("; ")}`, errorId: randomUUID() },
            contract: { ...contract, match: null, creationMatch: null, runtimeMatch: null },
          },
        };
      }
      this.verified.add("sourcify");
      return { status: 200, body: { ...finished, contract: { ...contract, match: "exact_match", creationMatch: "exact_match", runtimeMatch: "exact_match" } } };
    }
    return error(404, "not_found", `No route ${method} ${pathname}`);
  }

  private submit(explorer: Explorer, problems: string[], input: StandardJsonInput | undefined, newId: () => string): string {
    const id = newId();
    this.jobs.set(id, { explorer, problems, polls: 0, startedAt: new Date().toISOString() });
    this.submissions.push({ explorer, problems, sources: Object.keys(input?.sources ?? {}), settings: input?.settings ?? {} });
    return id;
  }

  /** How a standard JSON input differs from the build deployed. */
  private inputProblems(input: StandardJsonInput | undefined): string[] {
    if (input === undefined) return ["the source code is not a standard JSON input"];
    const problems = differences("language", input.language, "Solidity");
    const settings = input.settings ?? {};
    for (const name of new Set([...Object.keys(this.expected.settings), ...Object.keys(settings)])) {
      if (IGNORED_SETTINGS.includes(name)) continue;
      if (name === "libraries" && isDeepStrictEqual(settings.libraries, {})) continue;
      problems.push(...differences(`settings.${name}`, settings[name], this.expected.settings[name]));
    }
    const sources = input.sources ?? {};
    for (const [name, { content }] of Object.entries(sources)) {
      const built = this.expected.buildSources[name];
      if (built === undefined) problems.push(`source ${name} is not one of the build's`);
      else if (content !== built) problems.push(`source ${name} differs from the build's`);
    }
    for (const name of this.expected.contractSources) {
      if (!(name in sources)) problems.push(`source ${name} is missing`);
    }
    return problems;
  }
}

function differences(what: string, actual: unknown, expected: unknown): string[] {
  return isDeepStrictEqual(actual, expected) ? [] : [`${what} is ${JSON.stringify(actual)}, not ${JSON.stringify(expected)}`];
}

function sameAddress(actual: string | null, expected: string): boolean {
  return actual?.toLowerCase() === expected.toLowerCase();
}

function parseInput(sourceCode: string | null): StandardJsonInput | undefined {
  try {
    return sourceCode === null ? undefined : (JSON.parse(sourceCode) as StandardJsonInput);
  } catch {
    return undefined;
  }
}

function readBody(request: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    request.on("error", reject);
  });
}
