/**
 * The import rules outside src/ (.dependency-cruiser.tooling.cjs) bite: a fixture tree in a temporary
 * directory, with the real configuration file copied next to it, holds deliberately wrong imports (and
 * imports the rules allow), and dependency-cruiser reports exactly the wrong ones. And the real
 * bench/, scripts/ and docker/ pass the same rules.
 */
import { rmSync } from "node:fs";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { ROOT, violations, writeImportFixture } from "./import-fixture";

/** The rules' file, and the one of src/ whose options it shares. */
const CONFIG = ".dependency-cruiser.tooling.cjs";
const CONFIGS = [CONFIG, ".dependency-cruiser.cjs"];
const ROOTS = ["bench", "scripts", "docker"];

/** path (relative to the fixture root) -> imports. */
const FIXTURE: Record<string, string[]> = {
  // Imports the rules allow.
  "src/app.ts": [],
  "test/support/fixture.ts": ["../../scripts/stack/ports"],
  "scripts/stack/ports.ts": ["./paths"],
  "scripts/stack/paths.ts": [],
  "scripts/lib/playground.ts": ["../stack/ports", "../../src/app"],
  "scripts/start.ts": ["./lib/playground", "./stack/ports"],
  "bench/stack/stack.ts": ["../../scripts/stack/ports", "../../src/app"],
  "docker/chain-node.ts": ["../scripts/stack/ports"],
  "contracts/scripts/deploy.ts": ["../../src/app"],

  // Wrong ones.
  "bench/probe.ts": ["../test/support/fixture"],
  "bench/stack/probe.ts": ["../../test/support/fixture"],
  "scripts/probe.ts": ["../test/support/fixture"],
  "docker/probe.ts": ["../test/support/fixture"],
  "scripts/stack/probe.ts": ["../../src/app", "../lib/playground", "../../bench/stack/stack"],
  "bench/contract-probe.ts": ["../contracts/scripts/deploy"],
};

describe("import rules outside src (.dependency-cruiser.tooling.cjs)", () => {
  let fixture: string;

  beforeAll(() => {
    fixture = writeImportFixture(FIXTURE, CONFIGS, ["src", "test", "contracts", ...ROOTS]);
  });

  afterAll(() => {
    rmSync(fixture, { recursive: true, force: true });
  });

  it("reports every deliberately wrong import under its rule's name, and nothing else", async () => {
    expect((await violations(fixture, CONFIG, ROOTS)).map(({ rule, from, to }) => `${rule}: ${from} -> ${to}`)).toEqual(
      [
        "tooling-not-to-test: bench/probe.ts -> test/support/fixture.ts",
        "tooling-not-to-test: bench/stack/probe.ts -> test/support/fixture.ts",
        "tooling-not-to-test: scripts/probe.ts -> test/support/fixture.ts",
        "tooling-not-to-test: docker/probe.ts -> test/support/fixture.ts",
        "stack-library-stands-alone: scripts/stack/probe.ts -> src/app.ts",
        "stack-library-stands-alone: scripts/stack/probe.ts -> scripts/lib/playground.ts",
        "stack-library-stands-alone: scripts/stack/probe.ts -> bench/stack/stack.ts",
        "tooling-not-into-contract-workspace: bench/contract-probe.ts -> contracts/scripts/deploy.ts",
      ].sort(),
    );
  });

  it("holds for the real bench, scripts and docker", async () => {
    expect(await violations(ROOT, CONFIG, ROOTS)).toEqual([]);
  });
});
