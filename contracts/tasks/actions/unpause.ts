import { confirm, connectRegistry, reportingUsageErrors, requireAdmin } from "./registry.js";

export default reportingUsageErrors(async ({ registry: registryArg }: { registry?: string }, hre) => {
  const connected = await connectRegistry(hre, registryArg);
  const { registry, address } = connected;
  if (!(await registry.paused())) {
    console.log(`Registry ${address} is not paused; nothing sent`);
    return;
  }
  await requireAdmin(connected);
  const result = await confirm(await registry.unpause());
  console.log(`Unpaused registry ${address} (${result})`);
});
