import { expect } from "chai";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { Contract, JsonRpcProvider, Wallet, ZeroHash, getAddress, id } from "ethers";
import hre from "hardhat";
import type { SolidityBuildInfo } from "hardhat/types/solidity";

import { childEnv, describeRun, expectSuccess, freePort, HardhatNode, runHardhat, type RunResult } from "./support/hardhat-cli.js";

const CONTRACT = "src/TicketRegistry.sol:TicketRegistry";

async function readBuildInfo(contract: string): Promise<SolidityBuildInfo | undefined> {
  const buildInfoId = await hre.artifacts.getBuildInfoId(contract);
  const buildInfoPath = buildInfoId === undefined ? undefined : await hre.artifacts.getBuildInfoPath(buildInfoId);
  return buildInfoPath === undefined ? undefined : (JSON.parse(fs.readFileSync(buildInfoPath, "utf8")) as SolidityBuildInfo);
}

describe("scripts/deploy.ts and the registry tasks against a Hardhat node", function () {
  let node: HardhatNode | undefined;
  let provider: JsonRpcProvider;
  let deploymentsDir: string;
  let env: NodeJS.ProcessEnv;
  let accounts: string[];
  let deployer: string;
  let operator: string;
  let deployRun: RunResult;
  let record: Record<string, unknown>;
  let registry: Contract;
  const publicBaseUrl = "https://tickets.example/registry/";
  const baseURI = "https://tickets.example/registry/tokens/";
  const contractURI = "https://tickets.example/registry/tokens/collection";

  before(async function () {
    this.timeout(180_000);
    deploymentsDir = fs.mkdtempSync(path.join(os.tmpdir(), "registry-deployments-"));
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    env = childEnv({ LOCALHOST_RPC_URL: url, DEPLOYMENTS_DIR: deploymentsDir });
    node = await HardhatNode.start(port, env);

    provider = new JsonRpcProvider(url, undefined, { staticNetwork: true, polling: true, pollingInterval: 100 });
    accounts = ((await provider.send("eth_accounts", [])) as string[]).map((account) => getAddress(account));
    [deployer, operator] = accounts;

    deployRun = await runHardhat(["run", "--no-compile", "scripts/deploy.ts", "--network", "localhost"], {
      ...env,
      REGISTRY_OPERATORS: operator.toLowerCase(),
      PUBLIC_BASE_URL: publicBaseUrl,
    });
    expectSuccess(deployRun);
    const file = path.join(deploymentsDir, "localhost.json");
    record = JSON.parse(fs.readFileSync(file, "utf8")) as Record<string, unknown>;
    registry = new Contract(record.address as string, record.abi as string[], provider);
  });

  after(async function () {
    this.timeout(30_000);
    provider?.destroy();
    await node?.stop();
    if (deploymentsDir) fs.rmSync(deploymentsDir, { recursive: true, force: true });
  });

  describe("deploy", function () {
    it("records every field of the deployment", async function () {
      const artifact = await hre.artifacts.readArtifact(CONTRACT);
      const buildInfo = await readBuildInfo(CONTRACT);

      expect(Object.keys(record).sort()).to.deep.equal(
        [
          "abi",
          "address",
          "admin",
          "baseURI",
          "blockNumber",
          "buildInfoId",
          "chainId",
          "compilerSettings",
          "compilerVersion",
          "contract",
          "contractURI",
          "deployedAt",
          "deployer",
          "git",
          "name",
          "network",
          "operators",
          "symbol",
          "txHash",
        ].sort(),
      );
      expect(record.network).to.equal("localhost");
      expect(record.chainId).to.equal(31337);
      expect(record.address).to.equal(getAddress(record.address as string));
      expect(record.deployer).to.equal(deployer);
      expect(record.admin).to.equal(deployer);
      expect(record.operators).to.deep.equal([operator]);
      expect(record.name).to.equal("Ticket Registry");
      expect(record.symbol).to.equal("TICKET");
      expect(record.baseURI).to.equal(baseURI);
      expect(record.contractURI).to.equal(contractURI);
      // The configured compiler (hardhat.config.ts pins one), not a version copied into this test.
      const [{ version: solcVersion }] = hre.config.solidity.profiles.default.compilers;
      expect(record.compilerVersion).to.match(new RegExp(`^${solcVersion.replaceAll(".", "\\.")}\\+commit\\.[0-9a-f]{8}$`));
      expect(record.compilerVersion).to.equal(buildInfo?.solcLongVersion);
      // What a verifier needs to rebuild the bytecode: the settings, and the build info with the exact sources.
      expect(record.buildInfoId).to.equal(buildInfo?.id);
      expect(fs.existsSync(path.join(hre.config.paths.artifacts, "build-info", `${record.buildInfoId as string}.json`))).to.be.true;
      expect(record.contract).to.equal(CONTRACT);
      expect(record.compilerSettings).to.deep.include({ evmVersion: "cancun", viaIR: true, optimizer: { enabled: true, runs: 100_000 } });
      expect(record.compilerSettings).to.not.have.property("outputSelection");
      const git = record.git as { commit: string; dirty: boolean };
      expect(git.commit).to.match(/^[0-9a-f]{40}$/);
      expect(git.dirty).to.be.a("boolean");
      expect(new Date(record.deployedAt as string).toISOString()).to.equal(record.deployedAt);
      expect(Date.now() - Date.parse(record.deployedAt as string)).to.be.within(0, 10 * 60_000);
      expect(record.abi).to.deep.equal(artifact.abi);
      const abi = record.abi as { type: string; name?: string }[];
      expect(abi.some((item) => item.type === "function" && item.name === "execute")).to.be.true;
    });

    it("matches the deployment transaction on chain", async function () {
      const receipt = await provider.getTransactionReceipt(record.txHash as string);
      expect(receipt, "no receipt for the recorded txHash").to.not.be.null;
      expect(receipt!.status).to.equal(1);
      expect(receipt!.from).to.equal(record.deployer);
      expect(receipt!.contractAddress).to.equal(record.address);
      expect(receipt!.blockNumber).to.equal(record.blockNumber);
      expect(await provider.getCode(record.address as string)).to.not.equal("0x");
    });

    it("grants the admin and operator roles and nothing else", async function () {
      const stranger = Wallet.createRandom().address;
      const operatorRole = (await registry.OPERATOR_ROLE()) as string;
      expect(operatorRole).to.equal(id("OPERATOR_ROLE"));
      expect(await registry.hasRole(ZeroHash, record.admin)).to.be.true;
      expect(await registry.hasRole(operatorRole, operator)).to.be.true;
      expect(await registry.hasRole(ZeroHash, operator)).to.be.false;
      expect(await registry.hasRole(operatorRole, record.admin)).to.be.false;
      expect(await registry.hasRole(ZeroHash, stranger)).to.be.false;
      expect(await registry.hasRole(operatorRole, stranger)).to.be.false;
      expect(await registry.name()).to.equal("Ticket Registry");
      expect(await registry.symbol()).to.equal("TICKET");
      expect(await registry.paused()).to.be.false;
    });

    it("points the tokens and the collection at the service's PUBLIC_BASE_URL", async function () {
      expect(await registry.baseURI()).to.equal(baseURI);
      expect(await registry.contractURI()).to.equal(contractURI);
    });

    it("prints what it did", function () {
      expect(deployRun.stdout).to.include(record.address);
      expect(deployRun.stdout).to.include(record.txHash);
      expect(deployRun.stdout).to.include(operator);
    });

    /** Runs the deploy script with `extraEnv`; it must fail naming each of `named`, having sent and recorded nothing. */
    async function expectRefusedBeforeSending(extraEnv: Record<string, string>, named: string[]): Promise<void> {
      const otherDir = fs.mkdtempSync(path.join(os.tmpdir(), "registry-deployments-"));
      try {
        const blockBefore = await provider.getBlockNumber();
        const result = await runHardhat(["run", "--no-compile", "scripts/deploy.ts", "--network", "localhost"], {
          ...env,
          DEPLOYMENTS_DIR: otherDir,
          ...extraEnv,
        });
        expect(result.code, describeRun(result)).to.not.equal(0);
        for (const text of named) expect(result.stderr).to.include(text);
        expect(fs.readdirSync(otherDir)).to.be.empty;
        expect(await provider.getBlockNumber()).to.equal(blockBefore);
      } finally {
        fs.rmSync(otherDir, { recursive: true, force: true });
      }
    }

    it("refuses a PUBLIC_BASE_URL that is not an http(s) address before sending anything", async function () {
      await expectRefusedBeforeSending({ PUBLIC_BASE_URL: "ftp://tickets.example" }, ["PUBLIC_BASE_URL", "http"]);
    });

    it("refuses an invalid operator address before sending anything", async function () {
      await expectRefusedBeforeSending({ REGISTRY_OPERATORS: `${operator},0x1234` }, ["REGISTRY_OPERATORS", "0x1234"]);
    });
  });

  describe("tasks", function () {
    async function runTask(...args: string[]): Promise<RunResult> {
      const result = await runHardhat([...args, "--network", "localhost"], env);
      expectSuccess(result);
      return result;
    }

    /** The task's transaction, found by the hash it printed, was mined and sent to the registry. */
    async function expectMinedTx(result: RunResult): Promise<void> {
      const hash = /tx (0x[0-9a-f]{64})/.exec(result.stdout)?.[1];
      expect(hash, `no tx hash printed:\n${describeRun(result)}`).to.be.a("string");
      const receipt = await provider.getTransactionReceipt(hash!);
      expect(receipt?.status).to.equal(1);
      expect(receipt?.to).to.equal(record.address);
      expect(receipt?.from).to.equal(deployer);
    }

    it("registry:grant-operator grants OPERATOR_ROLE", async function () {
      const newOperator = accounts[2];
      const result = await runTask("registry:grant-operator", "--account", newOperator);
      await expectMinedTx(result);
      expect(result.stdout).to.include(newOperator);
      expect(await registry.hasRole(await registry.OPERATOR_ROLE(), newOperator)).to.be.true;
    });

    it("registry:revoke-operator revokes OPERATOR_ROLE", async function () {
      const result = await runTask("registry:revoke-operator", "--account", operator);
      await expectMinedTx(result);
      expect(await registry.hasRole(await registry.OPERATOR_ROLE(), operator)).to.be.false;
    });

    it("registry:pause pauses the registry", async function () {
      const result = await runTask("registry:pause");
      await expectMinedTx(result);
      expect(await registry.paused()).to.be.true;
    });

    it("registry:unpause unpauses the registry given its address", async function () {
      const result = await runTask("registry:unpause", "--registry", record.address as string);
      await expectMinedTx(result);
      expect(await registry.paused()).to.be.false;
    });

    it("registry:status reports the state and the roles", async function () {
      const result = await runTask("registry:status", "--accounts", `${accounts[2]},${operator}`);
      const lines = result.stdout.split("\n");
      expect(result.stdout).to.include(record.address);
      expect(lines).to.include("Paused    no");
      expect(lines).to.include(`Base URI  "${baseURI}"`);
      expect(lines).to.include(`Contract URI  "${contractURI}"`);
      expect(lines).to.include(`Admin     ${deployer} (signer): yes`);
      expect(lines).to.include(`Operator  ${accounts[2]}: yes`);
      expect(lines).to.include(`Operator  ${operator}: no`);
    });

    it("registry:status reports a base URI changed after the deployment", async function () {
      const newBaseURI = "ipfs://changed/";
      const admin = await provider.getSigner(deployer);
      const setBaseURI = registry.connect(admin).getFunction("setBaseURI");
      const tx = (await setBaseURI(newBaseURI)) as { hash: string; wait(): Promise<unknown> };
      await tx.wait();
      const result = await runTask("registry:status");
      expect(result.stdout.split("\n")).to.include(`Base URI  "${newBaseURI}"`);
    });

    it("registry:set-uris points base URI and contract URI at another public address, and sends nothing when they are there", async function () {
      const result = await runTask("registry:set-uris", "--public-base-url", "https://moved.example");
      await expectMinedTx(result);
      expect(await registry.baseURI()).to.equal("https://moved.example/tokens/");
      expect(await registry.contractURI()).to.equal("https://moved.example/tokens/collection");
      const again = await runTask("registry:set-uris", "--public-base-url", "https://moved.example", "--contract-uri", "ipfs://collection");
      expect(again.stdout).to.include('already "https://moved.example/tokens/"; nothing sent');
      expect(await registry.contractURI()).to.equal("ipfs://collection");
      const refused = await runHardhat(["registry:set-uris", "--network", "localhost"], env);
      expect(refused.code, describeRun(refused)).to.not.equal(0);
      expect(refused.stderr).to.include("--public-base-url");
    });

    it("refuses to send from an account without DEFAULT_ADMIN_ROLE", async function () {
      const candidate = accounts[3];
      const result = await runHardhat(["registry:grant-operator", "--account", candidate, "--network", "localhost"], {
        ...env,
        DEPLOYER_PRIVATE_KEY: Wallet.createRandom().privateKey,
      });
      expect(result.code, describeRun(result)).to.not.equal(0);
      expect(result.stderr).to.include("does not have DEFAULT_ADMIN_ROLE");
      expect(await registry.hasRole(await registry.OPERATOR_ROLE(), candidate)).to.be.false;
    });

    it("fails clearly without a recorded deployment or --registry", async function () {
      const emptyDir = fs.mkdtempSync(path.join(os.tmpdir(), "registry-deployments-"));
      try {
        const result = await runHardhat(["registry:pause", "--network", "localhost"], {
          ...env,
          DEPLOYMENTS_DIR: emptyDir,
        });
        expect(result.code, describeRun(result)).to.not.equal(0);
        expect(result.stderr).to.include("No registry address");
        expect(await registry.paused()).to.be.false;
      } finally {
        fs.rmSync(emptyDir, { recursive: true, force: true });
      }
    });
  });
});
