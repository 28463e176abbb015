import { writeFileSync } from "node:fs";

import { CONFIGURATION_DOC_PATH, configurationMarkdown, ENV_EXAMPLE_PATH, envExample } from "./lib/config-docs";

/**
 * `npm run docs:config`: writes the operators' configuration reference (docs/operators/configuration.md)
 * and .env.example from the config schema and its descriptions. test/docs/config-docs.spec.ts fails
 * while either file differs from what this writes.
 */
function main(): void {
  writeFileSync(CONFIGURATION_DOC_PATH, configurationMarkdown());
  writeFileSync(ENV_EXAMPLE_PATH, envExample());
  console.log(`Wrote ${CONFIGURATION_DOC_PATH} and ${ENV_EXAMPLE_PATH}`);
}

main();
