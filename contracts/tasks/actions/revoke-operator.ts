import { parseAddress } from "../../../scripts/lib/deployment.js";
import { confirm, connectRegistry, reportingUsageErrors, requireAdmin, required } from "./registry.js";

interface RevokeOperatorArgs {
  registry?: string;
  account?: string;
}

export default reportingUsageErrors(async ({ registry: registryArg, account }: RevokeOperatorArgs, hre) => {
  const wanted = required(account, "--account");
  const connected = await connectRegistry(hre, registryArg);
  const operator = parseAddress(wanted, "--account");
  const { registry, address } = connected;
  const role = await registry.OPERATOR_ROLE();
  if (!(await registry.hasRole(role, operator))) {
    console.log(`${operator} does not have OPERATOR_ROLE on ${address}; nothing sent`);
    return;
  }
  await requireAdmin(connected);
  const result = await confirm(await registry.revokeRole(role, operator));
  console.log(`Revoked OPERATOR_ROLE from ${operator} on ${address} (${result})`);
});
