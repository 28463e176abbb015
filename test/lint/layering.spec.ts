/**
 * The layering rules of .dependency-cruiser.cjs bite: a fixture tree in a temporary directory, with the
 * real configuration file copied next to it, holds one deliberately wrong import per rule (and imports
 * the rules allow), and dependency-cruiser reports exactly the wrong ones, each under its rule's name.
 * The fixture lives outside the repository so nothing is written into src/ while other test files run.
 *
 * And the real src/ passes the same rules.
 */
import { rmSync } from "node:fs";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { ROOT, violations as cruised, writeImportFixture } from "./import-fixture";

const CONFIG = ".dependency-cruiser.cjs";

/** Cruises `src` under `baseDir` with the configuration file there, as `npm run lint:deps` does. */
const violations = (baseDir: string) => cruised(baseDir, CONFIG, ["src"]);

/** The fixture: path (relative to the fixture root) -> imports. Each file exports one constant. */
const FIXTURE: Record<string, string[]> = {
  // Imports the rules allow.
  "src/common/text.ts": [],
  "src/config/config.ts": ["../common/text"],
  "src/database/database.ts": ["../config/config", "../common/text"],
  "src/registry/registry.ts": ["../common/text"],
  "src/ledger/ledger.ts": ["../database/database", "../registry/registry", "../common/text"],
  "src/events/events.ts": ["../ledger/ledger", "../common/text"],
  "src/events/event.dto.ts": ["../common/text"],
  "src/events/events.spec.ts": ["./events", "../../test/support/fixture"],
  "src/tickets/tickets.ts": ["../events/events", "../ledger/ledger"],
  "src/stream/stream.ts": ["../tickets/tickets", "../ledger/ledger"],
  "src/chain/chain.ts": ["../ledger/ledger", "../registry/registry"],
  "src/callbacks/callbacks.ts": ["../ledger/ledger"],
  "src/chain/writer/broadcast/sender.ts": ["../../chain"],
  "src/chain/writer/sending/writer.ts": ["../broadcast/sender"],
  "src/chain/writer/receipts/watcher.ts": ["../broadcast/sender"],
  "src/auth/auth.ts": [],
  "src/health/index.ts": [],
  "src/health/health.check.ts": [],
  "src/admin/admin.ts": ["../health", "../health/health.check"],
  "src/main.ts": ["./stream/stream", "./chain/chain", "./callbacks/callbacks", "./admin/admin", "./common/text"],
  "test/support/fixture.ts": [],
  "bench/tool.ts": [],

  // One wrong import (or two) per rule.
  "src/common/probe.ts": ["../events/events"],
  "src/config/probe.ts": ["../auth/auth"],
  "src/database/probe.ts": ["../auth/auth"],
  "src/registry/probe.ts": ["../auth/auth"],
  "src/registry/probe-nest.ts": ["@nestjs/common"],
  "src/ledger/probe.ts": ["../callbacks/callbacks"],
  "src/chain/probe.ts": ["../events/events"],
  "src/chain/cycle-a.ts": ["./cycle-b"],
  "src/chain/cycle-b.ts": ["./cycle-a"],
  "src/chain/writer/sending/probe.ts": ["../receipts/watcher"],
  "src/chain/writer/receipts/probe.ts": ["../sending/writer"],
  "src/chain/writer/broadcast/probe.ts": ["../sending/writer", "../receipts/watcher"],
  "src/health/probe.ts": ["../admin/admin"],
  "src/stream/probe.ts": ["../../test/support/fixture", "../../bench/tool", "../events/events.spec"],
};

describe("layering rules (.dependency-cruiser.cjs)", () => {
  let fixture: string;

  beforeAll(() => {
    fixture = writeImportFixture(FIXTURE, [CONFIG], ["src", "test", "bench"]);
  });

  afterAll(() => {
    rmSync(fixture, { recursive: true, force: true });
  });

  it("reports every deliberately wrong import under its rule's name, and nothing else", async () => {
    const found = await violations(fixture);
    const nest = found.find((violation) => violation.rule === "registry-no-nestjs");
    expect(nest?.to).toMatch(/(^|\/)node_modules\/@nestjs\/common\//);
    expect(found.map((violation) => (violation === nest ? { ...violation, to: "@nestjs/common" } : violation))).toEqual(
      [
        { rule: "chain-callbacks-not-to-features", from: "src/chain/probe.ts", to: "src/events/events.ts" },
        { rule: "common-imports-no-src", from: "src/common/probe.ts", to: "src/events/events.ts" },
        { rule: "config-imports-only-common", from: "src/config/probe.ts", to: "src/auth/auth.ts" },
        { rule: "database-imports-only-common-config", from: "src/database/probe.ts", to: "src/auth/auth.ts" },
        { rule: "ledger-not-to-features", from: "src/ledger/probe.ts", to: "src/callbacks/callbacks.ts" },
        // dependency-cruiser reports a module cycle once, at its first module.
        { rule: "no-circular", from: "src/chain/cycle-a.ts", to: "src/chain/cycle-b.ts" },
        // src/common -> src/events -> src/common: the upward edge is the one reported.
        { rule: "no-circular-top-level:common-to-events", from: "src/common/probe.ts", to: "src/events/events.ts" },
        // src/admin -> src/health (2 imports, one of them of the folder's index) -> src/admin (1 import): a cycle of
        // folders with no cycle of modules; neither folder is ranked, so the edge with fewer imports is reported.
        { rule: "no-circular-top-level:health-to-admin", from: "src/health/probe.ts", to: "src/admin/admin.ts" },
        // src/callbacks -> src/ledger -> src/callbacks: the ledger's import of a feature is the wrong direction.
        { rule: "no-circular-top-level:ledger-to-callbacks", from: "src/ledger/probe.ts", to: "src/callbacks/callbacks.ts" },
        { rule: "registry-imports-only-common", from: "src/registry/probe.ts", to: "src/auth/auth.ts" },
        { rule: "registry-no-nestjs", from: "src/registry/probe-nest.ts", to: "@nestjs/common" },
        { rule: "src-not-to-spec", from: "src/stream/probe.ts", to: "src/events/events.spec.ts" },
        { rule: "src-not-to-test-or-bench", from: "src/stream/probe.ts", to: "bench/tool.ts" },
        { rule: "src-not-to-test-or-bench", from: "src/stream/probe.ts", to: "test/support/fixture.ts" },
        { rule: "writer-broadcast-below-sending-and-receipts", from: "src/chain/writer/broadcast/probe.ts", to: "src/chain/writer/receipts/watcher.ts" },
        { rule: "writer-broadcast-below-sending-and-receipts", from: "src/chain/writer/broadcast/probe.ts", to: "src/chain/writer/sending/writer.ts" },
        { rule: "writer-sending-and-receipts-apart", from: "src/chain/writer/receipts/probe.ts", to: "src/chain/writer/sending/writer.ts" },
        { rule: "writer-sending-and-receipts-apart", from: "src/chain/writer/sending/probe.ts", to: "src/chain/writer/receipts/watcher.ts" },
      ].sort((a, b) => `${a.rule} ${a.from} ${a.to}`.localeCompare(`${b.rule} ${b.from} ${b.to}`)),
    );
  });

  it("holds for the real src", async () => {
    const found = await violations(ROOT);
    expect(found.map(({ rule, from, to }) => `${rule}: ${from} -> ${to}`)).toEqual([]);
  });
});
