import { execFile } from "node:child_process";
import path from "node:path";

import type { Request } from "express";
import { DataSource } from "typeorm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { API_KEY_PREFIX_LENGTH, hashApiKey } from "../../src/auth/api-key-secret";
import { AuthService } from "../../src/auth/auth.service";
import { OrganizationsService } from "../../src/auth/organizations.service";
import { OrganizationOnboardingService } from "../../src/callbacks/secrets/organization-onboarding.service";
import { WebhookSecretsService } from "../../src/callbacks/secrets/webhook-secrets.service";
import { loadConfig } from "../../src/config/app-config";
import { dataSourceOptions } from "../../src/database/data-source-options";
import { ENTITIES } from "../../src/entities";
import { createTestDatabase } from "../support/test-database";
import { type CompiledCli, compileCli } from "./compiled-cli";

const ROOT = path.resolve(__dirname, "../..");
const SECRETS_KEY = Buffer.alloc(32, 7).toString("base64");

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

interface KeyListing {
  prefix: string;
  label: string;
  scope: string;
  allowedIps: string[] | null;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

/** What `key list --json` says of a key issued without a scope or ranges, and never used. */
const PLAIN_KEY = { scope: "full", allowedIps: null, createdAt: expect.any(String), lastUsedAt: null };

/** A stack trace's frames; operators' mistakes must never show one. */
const STACK_FRAME = /^\s+at /m;

describe("ops CLI (npm run cli)", () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let dataSource: DataSource;
  let auth: AuthService;
  let organizations: OrganizationsService;
  let onboarding: OrganizationOnboardingService;
  let compiled: CompiledCli;

  beforeAll(async () => {
    [database, compiled] = await Promise.all([createTestDatabase(), compileCli(ROOT)]);
    dataSource = await new DataSource(dataSourceOptions(database.url, ENTITIES)).initialize();
    auth = new AuthService(dataSource);
    // Only to arrange keys for revoke and rotate; every behaviour under test goes through the CLI.
    organizations = new OrganizationsService(dataSource);
    onboarding = new OrganizationOnboardingService(dataSource, organizations, new WebhookSecretsService(dataSource, loadConfig({})));
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await database?.drop();
    await compiled?.remove();
  });

  /** The CLI as a real child process, compiled as after `nest build`; the first test runs it through npm and the TypeScript runner. */
  function cli(...args: string[]): Promise<CliResult> {
    return run(process.execPath, [compiled.entry, ...args]);
  }

  function cliWithSecretsKey(...args: string[]): Promise<CliResult> {
    return run(process.execPath, [compiled.entry, ...args], { WEBHOOK_SECRETS_KEY: SECRETS_KEY });
  }

  function run(file: string, args: string[], extraEnv: Record<string, string> = {}): Promise<CliResult> {
    const env = { ...process.env, DATABASE_URL: database.url, ...extraEnv };
    return new Promise((resolve) => {
      execFile(file, args, { cwd: ROOT, env, timeout: 30_000 }, (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : -1;
        resolve({ code, stdout, stderr });
      });
    });
  }

  async function succeeds(...args: string[]): Promise<string> {
    const result = await cli(...args);
    expect(result, `cli ${args.join(" ")}`).toMatchObject({ code: 0 });
    return result.stdout;
  }

  function printedKey(stdout: string): { key: string; prefix: string } {
    const key = /^key:\s+(\S+)$/m.exec(stdout)?.[1];
    const prefix = /^prefix:\s+(\S+)$/m.exec(stdout)?.[1];
    if (!key || !prefix) throw new Error(`no key in:\n${stdout}`);
    return { key, prefix };
  }

  async function keyListing(ticketeerId: string): Promise<KeyListing[]> {
    return JSON.parse(await succeeds("key", "list", ticketeerId, "--json")) as KeyListing[];
  }

  /** Every row of every table as text: where a leaked secret would have to be. */
  async function everythingStored(): Promise<string> {
    const tables = await dataSource.query<{ table_name: string }[]>(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`,
    );
    const dumps = await Promise.all(
      tables.map(({ table_name }) => dataSource.query<{ text: string }[]>(`SELECT coalesce(string_agg(t::text, E'\\n'), '') AS text FROM "${table_name}" t`)),
    );
    return dumps.map((rows) => rows[0].text).join("\n");
  }

  async function arrangeKey(ticketeerId: string, label: string): Promise<{ key: string; prefix: string }> {
    await onboarding.createOrganization(ticketeerId, `Organization ${ticketeerId}`);
    return organizations.issueKey(ticketeerId, label);
  }

  it("prints its usage through the npm script, and one command's usage with --help", async () => {
    const [help, commandHelp] = await Promise.all([run("npm", ["run", "--silent", "cli", "--", "help"]), cli("key", "create", "--help")]);

    expect(help.code).toBe(0);
    for (const command of [
      "org create <ticketeerId> --name <name>",
      "org list",
      "key create <ticketeerId> [--label <label>]",
      "key list <ticketeerId>",
      "key revoke <prefix>",
      "key rotate <prefix>",
      "signer reconcile <address>",
    ]) {
      expect(help.stdout).toContain(command);
    }
    expect(commandHelp).toMatchObject({ code: 0, stderr: "" });
    expect(commandHelp.stdout).toContain(
      "Usage: npm run cli -- key create <ticketeerId> [--label <label>] [--scope <full|scan|read>] [--allow-ip <CIDR,…>] [--json]",
    );
  });

  it("creates organizations and lists them as a table and as JSON", async () => {
    expect(await succeeds("org", "create", "acme", "--name", "Acme Tickets")).toContain("Created organization acme (Acme Tickets)");
    await succeeds("org", "create", "globex", "--name", "Globex");

    const [table, json] = await Promise.all([succeeds("org", "list"), succeeds("org", "list", "--json")]);

    expect(table).toMatch(/^TICKETEER ID\s+NAME\s+CREATED$/m);
    expect(table).toMatch(/^acme\s+Acme Tickets\s+\d{4}-\d\d-\d\dT/m);
    const listed = (JSON.parse(json) as { ticketeerId: string; name: string; createdAt: string }[]).filter((row) =>
      ["acme", "globex"].includes(row.ticketeerId),
    );
    expect(listed).toEqual([
      { ticketeerId: "acme", name: "Acme Tickets", createdAt: expect.any(String) },
      { ticketeerId: "globex", name: "Globex", createdAt: expect.any(String) },
    ]);
  });

  it("creates a key that authenticates, shows it once with a warning, and lists it by prefix only", async () => {
    await onboarding.createOrganization("initech", "Initech");

    const created = await succeeds("key", "create", "initech", "--label", "ci");

    const { key, prefix } = printedKey(created);
    expect(prefix).toBe(key.slice(0, API_KEY_PREFIX_LENGTH));
    expect(created).toMatch(/store this key now: it cannot be shown again/i);
    expect(await auth.authenticate(key)).toMatchObject({ ticketeerId: "initech", keyPrefix: prefix });

    const [table, listing] = await Promise.all([succeeds("key", "list", "initech"), keyListing("initech")]);
    expect(table).toMatch(/^PREFIX\s+LABEL\s+SCOPE\s+ALLOWED IPS\s+CREATED\s+LAST USED\s+REVOKED$/m);
    expect(table).toMatch(new RegExp(`^${prefix}\\s+ci\\s+full\\s+any\\s+\\S+\\s+-\\s+-$`, "m"));
    expect(listing).toEqual([{ prefix, label: "ci", ...PLAIN_KEY, revokedAt: null }]);
    for (const output of [table, JSON.stringify(listing)]) {
      expect(output).not.toContain(key.slice(API_KEY_PREFIX_LENGTH));
      expect(output).not.toContain(hashApiKey(key));
    }
  });

  it("creates a scoped key bound to IP ranges, lists its scope, ranges and last use, and keeps them through a rotation", async () => {
    await onboarding.createOrganization("stadium", "Stadium");

    const created = await succeeds("key", "create", "stadium", "--label", "door-1", "--scope", "scan", "--allow-ip", "203.0.113.0/24, 2001:DB8::/48");
    const reader = await succeeds("key", "create", "stadium", "--label", "dashboard", "--scope", "read");

    const door = printedKey(created);
    expect(await auth.authenticate(door.key)).toMatchObject({ ticketeerId: "stadium", keyScope: "scan" });
    expect(await auth.authenticate(printedKey(reader).key)).toMatchObject({ keyScope: "read" });
    const request = (ip: string) => ({ headers: { "x-api-key": door.key }, ip, socket: {} }) as unknown as Request;
    expect(await auth.admit(request("192.0.2.1"))).toEqual({ refused: { message: "Forbidden", code: "key_ip" } });
    expect(await keyListing("stadium")).toMatchObject([{ prefix: door.prefix, lastUsedAt: null }, { scope: "read" }]);
    expect(await auth.admit(request("203.0.113.9"))).toMatchObject({ admitted: { keyPrefix: door.prefix } });

    const [table, listing] = await Promise.all([succeeds("key", "list", "stadium"), keyListing("stadium")]);
    expect(listing).toEqual([
      {
        prefix: door.prefix,
        label: "door-1",
        scope: "scan",
        allowedIps: ["203.0.113.0/24", "2001:db8::/48"],
        createdAt: expect.any(String),
        lastUsedAt: expect.any(String),
        revokedAt: null,
      },
      { prefix: printedKey(reader).prefix, label: "dashboard", ...PLAIN_KEY, scope: "read", revokedAt: null },
    ]);
    expect(Date.parse(listing[0].lastUsedAt!)).toBeGreaterThanOrEqual(Date.parse(listing[0].createdAt));
    expect(table).toMatch(new RegExp(`^${door.prefix}\\s+door-1\\s+scan\\s+203\\.0\\.113\\.0/24,2001:db8::/48\\s+\\S+\\s+\\d{4}-\\S+\\s+-$`, "m"));

    const rotated = printedKey(await succeeds("key", "rotate", door.prefix));
    expect(await auth.authenticate(rotated.key)).toMatchObject({ keyScope: "scan" });
    expect((await keyListing("stadium")).find((key) => key.prefix === rotated.prefix)).toMatchObject({
      label: "door-1",
      scope: "scan",
      allowedIps: ["203.0.113.0/24", "2001:db8::/48"],
      lastUsedAt: null,
    });
  });

  it("refuses an unknown scope and a bad IP range with a clear error naming the option, exit code 1, and no key made", async () => {
    await onboarding.createOrganization("careful", "Careful");

    const cases: [string[], string][] = [
      [["--scope", "admin"], 'error: --scope "admin" is not a scope: use one of full, scan, read\n'],
      [["--scope", "Scan"], 'error: --scope "Scan" is not a scope: use one of full, scan, read\n'],
      [["--scope", ""], 'error: --scope "" is not a scope: use one of full, scan, read\n'],
      [["--allow-ip", "10.0.0.0/33"], 'error: --allow-ip "10.0.0.0/33" has a prefix longer than 32 bits\n'],
      [["--allow-ip", "10.0.0.1/8"], 'error: --allow-ip "10.0.0.1/8" has bits set after its /8 prefix: the range is 10.0.0.0/8\n'],
      [
        ["--allow-ip", "door.example.com"],
        'error: --allow-ip "door.example.com" is not an IP address or a CIDR range (such as 203.0.113.0/24 or 2001:db8::/48)\n',
      ],
      [["--allow-ip", "10.0.0.0/8,"], "error: --allow-ip has an empty entry (two commas in a row, or one at an end)\n"],
      [["--allow-ip", ""], "error: --allow-ip must name at least one IP address or CIDR range\n"],
      [
        ["--scope", "scan", "--allow-ip", "203.0.113.0/24,300.0.0.1"],
        'error: --allow-ip "300.0.0.1" is not an IP address or a CIDR range (such as 203.0.113.0/24 or 2001:db8::/48)\n',
      ],
    ];

    const results = await Promise.all(cases.map(([options]) => cli("key", "create", "careful", "--label", "door", ...options)));

    results.forEach((result, index) => {
      expect({ code: result.code, stdout: result.stdout, stderr: result.stderr }, cases[index][0].join(" ")).toEqual({
        code: 1,
        stdout: "",
        stderr: cases[index][1],
      });
    });
    const missingValue = await cli("key", "create", "careful", "--scope");
    expect(missingValue).toMatchObject({ code: 1, stdout: "", stderr: expect.stringMatching(/^error: Option '--scope <value>' argument missing/) });
    expect(await cli("key", "rotate", "trk_a", "--scope", "read")).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/^error: key rotate does not take --scope\n/),
    });
    expect(await keyListing("careful")).toEqual([]);
  });

  it("stores no part of a created key's secret in clear anywhere in the database", async () => {
    await onboarding.createOrganization("umbrella", "Umbrella");

    const { key, prefix } = JSON.parse(await succeeds("key", "create", "umbrella", "--json")) as { key: string; prefix: string };

    const rows = await dataSource.query<Record<string, unknown>[]>("SELECT * FROM api_keys WHERE prefix = $1", [prefix]);
    expect(rows).toHaveLength(1);
    expect(rows[0].secret_hash).toBe(hashApiKey(key));
    expect(Object.values(rows[0])).not.toContain(key);
    const stored = await everythingStored();
    expect(stored).toContain(hashApiKey(key));
    expect(stored).not.toContain(key.slice(API_KEY_PREFIX_LENGTH));
    expect(await auth.authenticate(key)).toMatchObject({ ticketeerId: "umbrella" });
  });

  it("stores webhook secrets encrypted under WEBHOOK_SECRETS_KEY, and encrypts the ones stored before it was set", async () => {
    const { webhookSecret: before } = await onboarding.createOrganization("vandelay", "Vandelay");
    const created = await cliWithSecretsKey("org", "create", "massive-dynamic", "--name", "Massive Dynamic");
    expect(created.code, created.stderr).toBe(0);
    const after = /^webhook secret: (whsec_\S+)$/m.exec(created.stdout)?.[1] ?? "";
    expect(after).toMatch(/^whsec_/);
    expect(await everythingStored()).not.toContain(after.slice("whsec_".length));
    expect(await everythingStored()).toContain(before.slice("whsec_".length));

    expect(await cli("secret", "encrypt")).toMatchObject({ code: 1, stderr: expect.stringContaining("WEBHOOK_SECRETS_KEY is not set") });
    expect(await cliWithSecretsKey("secret", "encrypt")).toMatchObject({ code: 0, stdout: expect.stringMatching(/^Encrypted \d+ webhook secrets?\./) });
    expect(await cliWithSecretsKey("secret", "encrypt")).toMatchObject({ code: 0, stdout: expect.stringContaining("already stored encrypted") });
    const stored = await everythingStored();
    expect(stored).not.toContain(before.slice("whsec_".length));
    expect(stored).not.toContain(after.slice("whsec_".length));

    const withKey = new WebhookSecretsService(dataSource, loadConfig({ WEBHOOK_SECRETS_KEY: SECRETS_KEY }));
    const [vandelay, massiveDynamic] = await Promise.all(
      ["vandelay", "massive-dynamic"].map((id) => organizations.listOrganizations().then((all) => all.find((o) => o.ticketeerId === id)!.id)),
    );
    const active = await withKey.activeSecrets([vandelay, massiveDynamic]);
    expect(active.get(vandelay)).toEqual([before]);
    expect(active.get(massiveDynamic)).toEqual([after]);
    await expect(new WebhookSecretsService(dataSource, loadConfig({})).activeSecrets([massiveDynamic])).rejects.toThrow(/WEBHOOK_SECRETS_KEY is not set/);
  });

  it("revokes a key: it stops authenticating at once and is listed as revoked", async () => {
    const { key, prefix } = await arrangeKey("hooli", "web");

    expect(await succeeds("key", "revoke", prefix)).toContain(`Revoked key ${prefix}`);

    expect(await auth.authenticate(key)).toBeNull();
    const [listing, again] = await Promise.all([keyListing("hooli"), cli("key", "revoke", prefix)]);
    expect(listing).toEqual([{ prefix, label: "web", ...PLAIN_KEY, revokedAt: expect.any(String) }]);
    expect(again).toMatchObject({ code: 1, stdout: "", stderr: `error: no live key with prefix ${prefix}\n` });
  });

  it("rotates a key: the new one authenticates with the same label, the old one stops at once", async () => {
    const old = await arrangeKey("pied-piper", "billing");

    const rotated = await succeeds("key", "rotate", old.prefix);

    const fresh = printedKey(rotated);
    expect(rotated).toMatch(/store this key now: it cannot be shown again/i);
    expect(fresh.prefix).not.toBe(old.prefix);
    expect(await auth.authenticate(fresh.key)).toMatchObject({ ticketeerId: "pied-piper", keyPrefix: fresh.prefix });
    expect(await auth.authenticate(old.key)).toBeNull();
    const [listing, again] = await Promise.all([keyListing("pied-piper"), cli("key", "rotate", old.prefix)]);
    expect(listing).toEqual([
      { prefix: old.prefix, label: "billing", ...PLAIN_KEY, revokedAt: expect.any(String) },
      { prefix: fresh.prefix, label: "billing", ...PLAIN_KEY, revokedAt: null },
    ]);
    expect(again).toMatchObject({ code: 1, stdout: "", stderr: `error: no live key with prefix ${old.prefix}\n` });
  });

  it("answers unknown organizations and prefixes, and duplicates, on stderr with exit code 1", async () => {
    await onboarding.createOrganization("taken", "Taken");

    const results = await Promise.all([
      cli("org", "create", "taken", "--name", "Again"),
      cli("key", "create", "nobody"),
      cli("key", "list", "nobody"),
      cli("key", "revoke", "trk_unknown1"),
    ]);

    expect(results.map(({ code, stdout, stderr }) => ({ code, stdout, stderr }))).toEqual([
      { code: 1, stdout: "", stderr: "error: organization taken exists\n" },
      { code: 1, stdout: "", stderr: "error: no organization nobody\n" },
      { code: 1, stdout: "", stderr: "error: no organization nobody\n" },
      { code: 1, stdout: "", stderr: "error: no live key with prefix trk_unknown1\n" },
    ]);
    expect(await keyListing("taken")).toEqual([]);
  });

  it("reports every organization's usage, one with nothing in the range too, as a table, CSV and JSON", async () => {
    await onboarding.createOrganization("usage-quiet", "Quiet");
    const today = new Date().toISOString().slice(0, 10);
    const range = ["--from", today, "--to", today];

    const [table, csv, json] = await Promise.all([
      succeeds("usage", "report", ...range),
      succeeds("usage", "report", ...range, "--csv"),
      succeeds("usage", "report", ...range, "--group-by", "event", "--json"),
    ]);

    expect(table).toMatch(/^TICKETEER ID\s+DAY\s+KIND\s+ACCEPTED\s+CONFIRMED\s+FAILED\s+TXS\s+GAS\s+FEE \(WEI\)$/m);
    expect(table).toMatch(/^usage-quiet\s+total\s+0\s+0\s+0\s+0\s+0\s+0$/m);
    expect(csv.split("\r\n")[0]).toBe("ticketeerId,day,kind,accepted,confirmed,failed,transactions,gas,feeWei");
    expect(csv).toContain("\r\nusage-quiet,,total,0,0,0,0,0,0\r\n");
    const report = JSON.parse(json) as { groupBy: string; organizations: { ticketeerId: string; groups: unknown[] }[]; totals: { gas: string } };
    expect(report.groupBy).toBe("event");
    expect(report.organizations.find((statement) => statement.ticketeerId === "usage-quiet")).toMatchObject({ groups: [] });
    expect(report.totals.gas).toBe("0");
  });

  it("refuses a usage report's bad range or grouping, naming the option, exit code 1 and no stack trace", async () => {
    const cases: [string[], RegExp][] = [
      [["usage", "report", "--from", "2026-03-01"], /^error: missing --to <to>\n\nUsage: npm run cli -- usage report --from <date> --to <date>/],
      [["usage", "report", "--from", "2026-03-02", "--to", "2026-03-01"], /^error: --from must be before to/],
      [["usage", "report", "--from", "2026-02-30", "--to", "2026-03-01"], /^error: --from is not a date of the calendar: 2026-02-30\n/],
      [["usage", "report", "--from", "2020-01-01", "--to", "2026-01-01"], /^error: --to must be at most 366 days after from/],
      [["usage", "report", "--from", "2026-03-01", "--to", "2026-03-01", "--group-by", "week"], /^error: --group-by must be one of day, event\n/],
    ];
    // One after the other: each run starts a process, and the machine is shared.
    for (const [args, message] of cases) {
      const result = await cli(...args);
      expect(result, `cli ${args.join(" ")}`).toMatchObject({ code: 1, stdout: "" });
      expect(result.stderr, `cli ${args.join(" ")}`).toMatch(message);
      expect(result.stderr).not.toMatch(STACK_FRAME);
    }
  });

  it("answers command-line mistakes with the fitting usage, exit code 1 and no stack trace", async () => {
    const cases: [string[], RegExp][] = [
      [[], /^error: missing command\n\nUsage: npm run cli -- <command>/],
      [["org", "create", "solo"], /^error: missing --name <name>\n\nUsage: npm run cli -- org create <ticketeerId> --name <name>/],
      [["key", "create"], /^error: missing <ticketeerId>\n\nUsage: npm run cli -- key create/],
      [["org", "create", " ", "--name", "Blank"], /^error: <ticketeerId> must not be blank\n/],
      [["org", "create", "acme\u202Etxt", "--name", "Hidden"], /^error: ticketeerId must not contain U\+202E \(character 5\), a bidirectional control/],
      [["org", "create", "..", "--name", "Dots"], /^error: ticketeerId must not be only dots/],
      [["key", "revoke", "trk_a", "--label", "x"], /^error: key revoke does not take --label\n/],
      [["key", "list", "acme", "--verbose"], /^error: Unknown option '--verbose'/],
      [["user", "delete"], /^error: unknown command "user delete"\n\nRun "npm run cli -- help"/],
      [["signer", "reconcile"], /^error: missing <address>\n\nUsage: npm run cli -- signer reconcile <address>/],
      [["signer", "reconcile", "0x1234"], /^error: 0x1234 is not an address\n/],
    ];

    const results = await Promise.all(cases.map(([args]) => cli(...args)));

    results.forEach((result, index) => {
      const [args, message] = cases[index];
      expect(result, `cli ${args.join(" ")}`).toMatchObject({ code: 1, stdout: "" });
      expect(result.stderr, `cli ${args.join(" ")}`).toMatch(message);
      expect(result.stderr).not.toMatch(STACK_FRAME);
    });
  });
});
