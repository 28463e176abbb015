import { verifyContract } from "@nomicfoundation/hardhat-verify/verify";

import { deploymentFile, readDeployment, REPOSITORY_ROOT, UsageError } from "../../../scripts/lib/deployment.js";
import { reportingUsageErrors } from "./registry.js";

/** Sourcify first: it needs no key, so a missing ETHERSCAN_API_KEY does not keep it from running. */
const EXPLORERS = [
  { provider: "sourcify", label: "Sourcify" },
  { provider: "etherscan", label: "Etherscan" },
] as const;

export default reportingUsageErrors(async ({ force }: { force: boolean }, hre) => {
  const { networkName } = await hre.network.getOrCreate();
  const record = readDeployment(REPOSITORY_ROOT, networkName);
  if (!record) {
    throw new UsageError(`No deployment recorded for network "${networkName}": registry:verify reads ${deploymentFile(REPOSITORY_ROOT, networkName)}`);
  }
  const explorers = EXPLORERS.filter(({ provider }) => hre.config.verify[provider].enabled);
  if (explorers.length === 0) throw new UsageError("Neither Sourcify nor Etherscan is enabled in the config's verify section");

  // The explorers rebuild the bytecode from the build on disk, which must be the one deployed.
  const buildInfoId = await hre.artifacts.getBuildInfoId(record.contract);
  if (buildInfoId !== record.buildInfoId) {
    const commit = record.git ? ` (commit ${record.git.commit}${record.git.dirty ? ", with uncommitted changes" : ""})` : "";
    console.log(
      `Note: the build of ${record.contract} (${buildInfoId ?? "none"}) is not the one recorded (${record.buildInfoId}); ` +
        `if the explorers find that the bytecode differs, build the sources deployed${commit} and verify again.`,
    );
  }

  const constructorArgs = [record.admin, record.name, record.symbol, record.baseURI, record.contractURI];
  const failures: string[] = [];
  for (const { provider, label } of explorers) {
    console.log(`\n=== ${label} ===`);
    try {
      await verifyContract({ address: record.address, constructorArgs, contract: record.contract, creationTxHash: record.txHash, provider, force }, hre);
    } catch (error) {
      failures.push(`  ${label}: ${indented(error instanceof Error ? error.message : String(error))}`);
    }
  }
  if (failures.length > 0) {
    throw new UsageError(`The registry ${record.address} on ${networkName} was not verified:\n${failures.join("\n")}`);
  }
});

/** A multi-line message laid under its explorer's name. */
function indented(message: string): string {
  return message
    .split("\n")
    .map((line, index) => (index === 0 ? line : `    ${line.trimStart()}`))
    .join("\n");
}
