/**
 * The import rules outside src/ (.dependency-cruiser.tooling.cjs) bite: a fixture tree in a temporary
 * directory, with the real configuration file copied next to it, holds deliberately wrong imports (and
 * imports the rules allow), and dependency-cruiser reports exactly the wrong ones. And the real
 * bench/, scripts/ and docker/ pass the same rules.
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";

import { cruise, type ICruiseResult } from "dependency-cruiser";
import extractDepcruiseOptions from "dependency-cruiser/config-utl/extract-depcruise-options";
import extractTSConfig from "dependency-cruiser/config-utl/extract-ts-config";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = resolve(__dirname, "..", "..");
const CONFIG = ".dependency-cruiser.tooling.cjs";

/** Cruises bench, scripts and docker under `baseDir` with the configuration file there, as `npm run lint:deps` does. */
async function violations(baseDir: string): Promise<string[]> {
  const options = await extractDepcruiseOptions(join(baseDir, CONFIG));
  const tsConfig = extractTSConfig(join(baseDir, "tsconfig.json"));
  const { output } = await cruise(["bench", "scripts", "docker"], { ...options, baseDir }, {}, { tsConfig });
  return (output as ICruiseResult).summary.violations.map(({ rule, from, to }) => `${rule.name}: ${from} -> ${to}`).sort();
}

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

  // Wrong ones.
  "bench/probe.ts": ["../test/support/fixture"],
  "bench/stack/probe.ts": ["../../test/support/fixture"],
  "scripts/probe.ts": ["../test/support/fixture"],
  "docker/probe.ts": ["../test/support/fixture"],
  "scripts/stack/probe.ts": ["../../src/app", "../lib/playground", "../../bench/stack/stack"],
};

describe("import rules outside src (.dependency-cruiser.tooling.cjs)", () => {
  let fixture: string;

  beforeAll(() => {
    fixture = mkdtempSync(join(tmpdir(), "tooling-imports-"));
    copyFileSync(join(ROOT, CONFIG), join(fixture, CONFIG));
    symlinkSync(join(ROOT, "node_modules"), join(fixture, "node_modules"), "dir");
    const compilerOptions = { module: "nodenext", moduleResolution: "nodenext", strict: true, skipLibCheck: true, noEmit: true };
    writeFileSync(join(fixture, "tsconfig.json"), JSON.stringify({ compilerOptions, include: ["src", "test", "bench", "scripts", "docker"] }));
    for (const [file, imports] of Object.entries(FIXTURE)) {
      mkdirSync(dirname(join(fixture, file)), { recursive: true });
      const lines = imports.map((specifier, i) => `import * as imported${i} from "${specifier}";`);
      const used = imports.map((_, i) => `imported${i}`).join(", ");
      writeFileSync(join(fixture, file), `${lines.join("\n")}\nexport const value = [${used}];\n`);
    }
  });

  afterAll(() => {
    rmSync(fixture, { recursive: true, force: true });
  });

  it("reports every deliberately wrong import under its rule's name, and nothing else", async () => {
    expect(await violations(fixture)).toEqual(
      [
        "tooling-not-to-test: bench/probe.ts -> test/support/fixture.ts",
        "tooling-not-to-test: bench/stack/probe.ts -> test/support/fixture.ts",
        "tooling-not-to-test: scripts/probe.ts -> test/support/fixture.ts",
        "tooling-not-to-test: docker/probe.ts -> test/support/fixture.ts",
        "stack-library-stands-alone: scripts/stack/probe.ts -> src/app.ts",
        "stack-library-stands-alone: scripts/stack/probe.ts -> scripts/lib/playground.ts",
        "stack-library-stands-alone: scripts/stack/probe.ts -> bench/stack/stack.ts",
      ].sort(),
    );
  });

  it("holds for the real bench, scripts and docker", async () => {
    expect(await violations(ROOT)).toEqual([]);
  });
});
