import { writeFileSync } from "node:fs";

import { ABI_PATH, generateAbi, generateSchema, SCHEMA_PATH } from "../client/generate";

/**
 * Writes the typed client's types (client/src/schema.ts) from the committed openapi.json, and its
 * copy of the registry's ABI (client/src/abi.ts). Run it after `npm run openapi` or a change of the
 * committed ABI; client/src/schema.spec.ts and abi.spec.ts fail while they disagree.
 */
async function main(): Promise<void> {
  writeFileSync(SCHEMA_PATH, await generateSchema());
  writeFileSync(ABI_PATH, generateAbi());
  console.log(`Wrote ${SCHEMA_PATH} and ${ABI_PATH}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
