import { readFileSync } from "node:fs";

import { describe, expect, it } from "vitest";

import { CONFIGURATION_DOC_PATH, configurationMarkdown, ENV_EXAMPLE_PATH, envExample } from "../../scripts/lib/config-docs";

describe("the configuration reference and .env.example", () => {
  it("docs/operators/configuration.md is what the config schema gives (run `npm run docs:config` after changing it)", () => {
    expect(readFileSync(CONFIGURATION_DOC_PATH, "utf8")).toBe(configurationMarkdown());
  });

  it(".env.example is what the config schema gives (run `npm run docs:config` after changing it)", () => {
    expect(readFileSync(ENV_EXAMPLE_PATH, "utf8")).toBe(envExample());
  });

  it("lists every variable an operator may set in .env.example, and the test hooks in neither file's examples", () => {
    const example = envExample();
    for (const name of ["PORT", "DATABASE_URL", "SIGNER_PRIVATE_KEYS", "WEBHOOK_SECRETS_KEY", "WORKER_PORT"]) expect(example).toContain(`\n#${name}=`);
    expect(example).not.toContain("CHAIN_WRITER_CRASH_AT");
    expect(configurationMarkdown()).toContain("**`CHAIN_WRITER_CRASH_AT`**");
  });
});
