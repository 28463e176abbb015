import { expect } from "chai";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { AbiCoder, JsonRpcProvider, getAddress } from "ethers";
import hre from "hardhat";
import type { SolidityBuildInfo, SolidityBuildInfoOutput } from "hardhat/types/solidity";

import { type ExpectedVerification, ExplorerStandIn } from "./support/explorer-stand-in.js";
import { childEnv, describeRun, expectSuccess, freePort, HardhatNode, outsideCi, runHardhat, type RunResult } from "./support/hardhat-cli.js";

const CONTRACT = "src/TicketRegistry.sol:TicketRegistry";
/** Polygon Amoy's: explorers verify nothing on the development chains' ids (31337, 1337). */
const CHAIN_ID = 80002;
const ETHERSCAN_API_KEY = "stand-in-etherscan-key";
const PUBLIC_BASE_URL = "https://tickets.example";
const REGISTRY_NAME = "Verified Tickets";
const REGISTRY_SYMBOL = "VTIX";

interface Build {
  info: SolidityBuildInfo;
  output: SolidityBuildInfoOutput;
}

async function readBuild(contract: string): Promise<Build> {
  const buildInfoId = await hre.artifacts.getBuildInfoId(contract);
  expect(buildInfoId, `no build info for ${contract}`).to.be.a("string");
  const infoPath = await hre.artifacts.getBuildInfoPath(buildInfoId!);
  const outputPath = await hre.artifacts.getBuildInfoOutputPath(buildInfoId!);
  return {
    info: JSON.parse(fs.readFileSync(infoPath!, "utf8")) as SolidityBuildInfo,
    output: JSON.parse(fs.readFileSync(outputPath!, "utf8")) as SolidityBuildInfoOutput,
  };
}

interface AstNode {
  nodeType: string;
  absolutePath?: string;
}

/** The sources `root` is compiled from: itself and what it imports, transitively, as the build's ASTs say. */
function sourceClosure(output: SolidityBuildInfoOutput, root: string): string[] {
  const sources = output.output.sources as Record<string, { ast: { nodes: AstNode[] } }>;
  const seen = new Set<string>();
  const pending = [root];
  while (pending.length > 0) {
    const name = pending.pop()!;
    if (seen.has(name)) continue;
    seen.add(name);
    const imports = sources[name].ast.nodes.filter((node) => node.nodeType === "ImportDirective").map((node) => node.absolutePath!);
    pending.push(...imports);
  }
  return [...seen].sort();
}

describe("registry:verify against stand-ins of Sourcify's and Etherscan's APIs", function () {
  let node: HardhatNode | undefined;
  let deploymentsDir: string;
  let env: NodeJS.ProcessEnv;
  let record: { address: string; txHash: string; deployer: string; buildInfoId: string };
  let build: Build;
  let expected: ExpectedVerification;
  const standIns: ExplorerStandIn[] = [];

  before(async function () {
    this.timeout(180_000);
    deploymentsDir = fs.mkdtempSync(path.join(os.tmpdir(), "registry-deployments-"));
    const port = await freePort();
    env = childEnv({ LOCALHOST_RPC_URL: `http://127.0.0.1:${port}`, DEPLOYMENTS_DIR: deploymentsDir });
    node = await HardhatNode.start(port, env, ["--chain-id", String(CHAIN_ID)]);

    const deployRun = await runHardhat(["run", "--no-compile", "scripts/deploy.ts", "--network", "localhost"], {
      ...env,
      REGISTRY_NAME,
      REGISTRY_SYMBOL,
      PUBLIC_BASE_URL,
    });
    expectSuccess(deployRun);
    record = JSON.parse(fs.readFileSync(path.join(deploymentsDir, "localhost.json"), "utf8")) as typeof record;

    build = await readBuild(CONTRACT);
    expect(record.buildInfoId).to.equal(build.info.id);
    const { inputSourceName, contractName } = await hre.artifacts.readArtifact(CONTRACT);
    expect(inputSourceName, `no input source name in the artifact of ${CONTRACT}`).to.be.a("string");
    const [{ version: solcVersion }] = hre.config.solidity.profiles.default.compilers;
    expect(build.info.solcLongVersion).to.match(new RegExp(`^${solcVersion.replaceAll(".", "\\.")}\\+commit\\.[0-9a-f]{8}$`));
    const { outputSelection: _written, remappings: _importNames, ...bytecodeSettings } = build.info.input.settings as Record<string, unknown>;
    expect(bytecodeSettings).to.deep.include({ optimizer: { enabled: true, runs: 100_000 }, viaIR: true, evmVersion: "cancun" });
    expected = {
      chainId: String(CHAIN_ID),
      address: record.address,
      creationTxHash: record.txHash,
      contractIdentifier: `${inputSourceName}:${contractName}`,
      compilerVersion: `v${build.info.solcLongVersion}`,
      settings: bytecodeSettings,
      buildSources: Object.fromEntries(Object.entries(build.info.input.sources).map(([name, { content }]) => [name, content])),
      contractSources: sourceClosure(build.output, inputSourceName!),
      constructorArguments: AbiCoder.defaultAbiCoder()
        .encode(
          ["address", "string", "string", "string", "string"],
          [record.deployer, REGISTRY_NAME, REGISTRY_SYMBOL, `${PUBLIC_BASE_URL}/tokens/`, `${PUBLIC_BASE_URL}/tokens/collection`],
        )
        .slice(2),
      etherscanApiKey: ETHERSCAN_API_KEY,
    };
  });

  after(async function () {
    this.timeout(30_000);
    await Promise.all(standIns.map((standIn) => standIn.stop()));
    await node?.stop();
    if (deploymentsDir) fs.rmSync(deploymentsDir, { recursive: true, force: true });
  });

  async function startStandIn(expectation: ExpectedVerification): Promise<ExplorerStandIn> {
    const standIn = await ExplorerStandIn.start(expectation);
    standIns.push(standIn);
    return standIn;
  }

  /** registry:verify as an operator runs it, its explorers the stand-in; `extraEnv` entries set to undefined are left out. */
  function verify(standIn: ExplorerStandIn, extraEnv: Record<string, string | undefined> = {}): Promise<RunResult> {
    const verifyEnv: NodeJS.ProcessEnv = {
      ...env,
      ETHERSCAN_API_URL: standIn.etherscanApiUrl,
      SOURCIFY_API_URL: standIn.sourcifyApiUrl,
      ETHERSCAN_API_KEY,
      ...extraEnv,
    };
    for (const [name, value] of Object.entries(verifyEnv)) if (value === undefined) delete verifyEnv[name];
    return runHardhat(["registry:verify", "--network", "localhost"], outsideCi(verifyEnv));
  }

  it("deploys what the stand-ins expect: the recorded address holds the registry, created by the recorded transaction", async function () {
    const provider = new JsonRpcProvider(node!.url, undefined, { staticNetwork: true });
    try {
      expect((await provider.getNetwork()).chainId).to.equal(BigInt(CHAIN_ID));
      const receipt = await provider.getTransactionReceipt(record.txHash);
      expect(receipt?.contractAddress).to.equal(getAddress(record.address));
      const creation = await provider.getTransaction(record.txHash);
      expect(creation?.data.endsWith(expected.constructorArguments)).to.be.true;
    } finally {
      provider.destroy();
    }
  });

  describe("explorers that accept the build", function () {
    let standIn: ExplorerStandIn;

    before(async function () {
      standIn = await startStandIn(expected);
    });

    it("verifies the recorded registry on Sourcify and Etherscan with one command, submitting the contract's own sources of the build", async function () {
      const result = await verify(standIn);
      expectSuccess(result);
      expect(standIn.submissions.map(({ explorer, problems }) => ({ explorer, problems }))).to.deep.equal([
        { explorer: "sourcify", problems: [] },
        { explorer: "etherscan", problems: [] },
      ]);
      for (const submission of standIn.submissions) expect(submission.sources.sort()).to.deep.equal(expected.contractSources);
      expect(standIn.isVerifiedOn("sourcify")).to.be.true;
      expect(standIn.isVerifiedOn("etherscan")).to.be.true;
      expect(result.stdout).to.include("Contract verified successfully on Sourcify");
      // Etherscan's name for the chain's explorer, from Hardhat's chain descriptor.
      expect(result.stdout).to.include("Contract verified successfully on PolygonScan");
      expect(result.stdout).to.include(record.address);
    });

    it("submits nothing again where the registry is already verified", async function () {
      const result = await verify(standIn);
      expectSuccess(result);
      expect(standIn.submissions).to.have.length(2);
      expect(result.stdout.match(/has already been verified/g)).to.have.length(2);
    });
  });

  describe("explorers that refuse", function () {
    it("fails with the explorers' reasons, and no stack trace, when the build's sources are not the ones deployed", async function () {
      // As if the registry on chain had been built from another revision of its main source.
      const main = expected.contractIdentifier.split(":")[0];
      const otherRevision = { ...expected.buildSources, [main]: `${expected.buildSources[main]}\n// another revision\n` };
      const standIn = await startStandIn({ ...expected, buildSources: otherRevision });

      const result = await verify(standIn);
      expect(result.code, describeRun(result)).to.not.equal(0);
      expect(result.stderr).to.include(`The registry ${record.address} on localhost was not verified`);
      const [, sourcifyReason, etherscanReason] = result.stderr.split(/^ {2}(?:Sourcify|Etherscan): /m);
      expect(sourcifyReason, describeRun(result)).to.include(`source ${main} differs from the build's`);
      expect(etherscanReason, describeRun(result)).to.include(`source ${main} differs from the build's`);
      expect(`${result.stdout}\n${result.stderr}`).to.not.match(/^\s+at /m);
      expect(standIn.isVerifiedOn("sourcify")).to.be.false;
      expect(standIn.isVerifiedOn("etherscan")).to.be.false;
      const explorers = new Set(standIn.submissions.map(({ explorer }) => explorer));
      expect([...explorers].sort()).to.deep.equal(["etherscan", "sourcify"]);
      for (const submission of standIn.submissions) expect(submission.problems).to.include(`source ${main} differs from the build's`);
    });

    it("names the missing ETHERSCAN_API_KEY, and verifies on Sourcify all the same", async function () {
      const standIn = await startStandIn(expected);
      const result = await verify(standIn, { ETHERSCAN_API_KEY: undefined });
      expect(result.code, describeRun(result)).to.not.equal(0);
      expect(result.stderr).to.match(/^ {2}Etherscan: .*ETHERSCAN_API_KEY/m);
      expect(standIn.isVerifiedOn("sourcify")).to.be.true;
      expect(standIn.submissions.map(({ explorer }) => explorer)).to.deep.equal(["sourcify"]);
    });

    it("refuses a network without a recorded deployment", async function () {
      const standIn = await startStandIn(expected);
      const emptyDir = fs.mkdtempSync(path.join(os.tmpdir(), "registry-deployments-"));
      try {
        const result = await verify(standIn, { DEPLOYMENTS_DIR: emptyDir });
        expect(result.code, describeRun(result)).to.not.equal(0);
        expect(result.stderr).to.include('No deployment recorded for network "localhost"');
        expect(standIn.submissions).to.be.empty;
      } finally {
        fs.rmSync(emptyDir, { recursive: true, force: true });
      }
    });
  });
});
