import { writeFileSync } from "node:fs";

import { generateSchema, SCHEMA_PATH } from "../client/generate";

/**
 * Writes the typed client's types (client/src/schema.ts) from the committed openapi.json. Run it
 * after `npm run openapi`; client/src/schema.spec.ts fails while the two disagree.
 */
async function main(): Promise<void> {
  writeFileSync(SCHEMA_PATH, await generateSchema());
  console.log(`Wrote ${SCHEMA_PATH}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
