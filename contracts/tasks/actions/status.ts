import { parseAddressList, readDeployment, REPOSITORY_ROOT } from "../../../scripts/lib/deployment.js";
import { connectRegistry, reportingUsageErrors, yesNo } from "./registry.js";

interface StatusArgs {
  registry?: string;
  accounts?: string;
}

export default reportingUsageErrors(async ({ registry: registryArg, accounts }: StatusArgs, hre) => {
  const { connection, registry, address, signer } = await connectRegistry(hre, registryArg);
  const { ethers, networkName } = connection;
  const adminRole = await registry.DEFAULT_ADMIN_ROLE();
  const operatorRole = await registry.OPERATOR_ROLE();
  const recorded = readDeployment(REPOSITORY_ROOT, networkName);
  const record = recorded?.address.toLowerCase() === address.toLowerCase() ? recorded : undefined;
  const { chainId } = await ethers.provider.getNetwork();

  console.log(`Registry  ${address} on ${networkName} (chainId ${chainId})`);
  console.log(`Paused    ${yesNo(await registry.paused())}`);
  console.log(`Base URI  "${await registry.baseURI()}"`);
  console.log(`Contract URI  "${await registry.contractURI()}"`);
  console.log(`Admin     ${signer} (signer): ${yesNo(await registry.hasRole(adminRole, signer))}`);
  if (record && record.admin !== signer) {
    console.log(`Admin     ${record.admin} (recorded): ${yesNo(await registry.hasRole(adminRole, record.admin))}`);
  }
  for (const account of parseAddressList(accounts, "--accounts")) {
    console.log(`Operator  ${account}: ${yesNo(await registry.hasRole(operatorRole, account))}`);
  }
});
