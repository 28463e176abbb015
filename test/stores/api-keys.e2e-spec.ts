import { createHash } from "node:crypto";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { AuthService } from "../../src/auth/auth.service";
import { OrganizationsError, OrganizationsService } from "../../src/auth/organizations.service";
import { openStoreDatabase, type StoreDatabase } from "../support/store-database";

let db: StoreDatabase;
let auth: AuthService;
let organizations: OrganizationsService;

beforeAll(async () => {
  db = await openStoreDatabase();
  auth = new AuthService(db.dataSource);
  organizations = new OrganizationsService(db.dataSource);
});

afterAll(async () => {
  await db?.close();
});

/** A key's last character changed: the same prefix, another secret. */
function tampered(key: string): string {
  return key.slice(0, -1) + (key.endsWith("A") ? "B" : "A");
}

describe("AuthService: API-key lookup", () => {
  it("finds a live key's organization by the key's prefix, stores only the prefix and the SHA-256", async () => {
    const organization = await organizations.createOrganization("acme", "Acme Tickets");
    const { key, prefix } = await organizations.issueKey("acme", "ci");

    expect(await auth.authenticate(key)).toEqual({ id: organization.id, ticketeerId: "acme", name: "Acme Tickets", keyPrefix: key.slice(0, 12) });
    const rows = await db.dataSource.query<Record<string, unknown>[]>(
      `SELECT prefix, secret_hash, label, revoked_at FROM api_keys WHERE organization_id = $1`,
      [organization.id],
    );
    expect(rows).toEqual([{ prefix, secret_hash: createHash("sha256").update(key).digest("hex"), label: "ci", revoked_at: null }]);
  });

  it("refuses a key whose prefix is known but whose secret is not the one issued", async () => {
    await organizations.createOrganization("globex", "Globex");
    const { key } = await organizations.issueKey("globex");

    expect(await auth.authenticate(tampered(key))).toBeNull();
    expect(await auth.authenticate(key + "x")).toBeNull();
    expect(await auth.authenticate(key.slice(0, -1))).toBeNull();
    expect(await auth.authenticate(key)).toMatchObject({ ticketeerId: "globex" });
  });

  it("refuses unknown prefixes, and what is too short or too long to be a key", async () => {
    await organizations.createOrganization("initech", "Initech");
    const { key, prefix } = await organizations.issueKey("initech");

    expect(await auth.authenticate("trk_unknown1_" + "x".repeat(43))).toBeNull();
    expect(await auth.authenticate(prefix)).toBeNull();
    expect(await auth.authenticate(prefix + "x".repeat(245))).toBeNull();
    expect(await auth.authenticate("")).toBeNull();
    expect(await auth.authenticate(key)).not.toBeNull();
  });

  it("keeps every key to its own organization", async () => {
    const [hooli, umbrella] = await Promise.all([organizations.createOrganization("hooli", "Hooli"), organizations.createOrganization("umbrella", "Umbrella")]);
    const [hooliKey, umbrellaKey] = await Promise.all([organizations.issueKey("hooli"), organizations.issueKey("umbrella")]);

    expect(await auth.authenticate(hooliKey.key)).toMatchObject({ id: hooli.id, ticketeerId: "hooli" });
    expect(await auth.authenticate(umbrellaKey.key)).toMatchObject({ id: umbrella.id, ticketeerId: "umbrella" });
  });

  it("refuses a revoked key at once, while the organization's other key still works", async () => {
    await organizations.createOrganization("vandelay", "Vandelay");
    const revoked = await organizations.issueKey("vandelay", "old");
    const kept = await organizations.issueKey("vandelay", "new");

    await organizations.revokeKey(revoked.prefix);

    expect(await auth.authenticate(revoked.key)).toBeNull();
    expect(await auth.authenticate(kept.key)).toMatchObject({ ticketeerId: "vandelay", keyPrefix: kept.prefix });
    const [row] = await db.dataSource.query<{ revoked_at: Date | null }[]>(`SELECT revoked_at FROM api_keys WHERE prefix = $1`, [revoked.prefix]);
    expect(row.revoked_at).toBeInstanceOf(Date);
    await expect(organizations.revokeKey(revoked.prefix)).rejects.toThrow(new OrganizationsError(`no live key with prefix ${revoked.prefix}`));
  });

  it("rotates a key: the old one refused, its replacement live under the same label", async () => {
    await organizations.createOrganization("pied-piper", "Pied Piper");
    const old = await organizations.issueKey("pied-piper", "billing");

    const fresh = await organizations.rotateKey(old.prefix);

    expect(fresh.prefix).not.toBe(old.prefix);
    expect(await auth.authenticate(old.key)).toBeNull();
    expect(await auth.authenticate(fresh.key)).toMatchObject({ ticketeerId: "pied-piper", keyPrefix: fresh.prefix });
    expect((await organizations.listKeys("pied-piper")).map(({ prefix, label, revokedAt }) => ({ prefix, label, revoked: revokedAt !== null }))).toEqual([
      { prefix: old.prefix, label: "billing", revoked: true },
      { prefix: fresh.prefix, label: "billing", revoked: false },
    ]);
    await expect(organizations.rotateKey(old.prefix)).rejects.toThrow(OrganizationsError);
  });
});

describe("OrganizationsService", () => {
  it("refuses a second organization under the same ticketeerId, and keys for an organization that does not exist", async () => {
    await organizations.createOrganization("taken", "Taken");

    await expect(organizations.createOrganization("taken", "Again")).rejects.toThrow(new OrganizationsError("organization taken exists"));
    await expect(organizations.issueKey("nobody")).rejects.toThrow(new OrganizationsError("no organization nobody"));
    expect((await organizations.listOrganizations()).filter((organization) => organization.ticketeerId === "taken")).toHaveLength(1);
  });

  it("creates an organization inside the caller's transaction, gone with it when it rolls back", async () => {
    const rollback = new Error("rolled back on purpose");

    await expect(
      db.dataSource.transaction(async (manager) => {
        await organizations.createOrganization("short-lived", "Short-lived", manager);
        throw rollback;
      }),
    ).rejects.toBe(rollback);

    expect(await organizations.findOrganization("short-lived")).toBeNull();
  });

  it("makes the playground key exist once, and refuses one that shares its prefix with another key", async () => {
    await organizations.createOrganization("playground", "Playground");
    const key = "trk_playgrnd_" + "p".repeat(43);

    await organizations.seedPlaygroundKey("playground", key);
    await organizations.seedPlaygroundKey("playground", key);

    expect((await organizations.listKeys("playground")).map(({ prefix, label }) => ({ prefix, label }))).toEqual([
      { prefix: "trk_playgrnd", label: "playground" },
    ]);
    expect(await auth.authenticate(key)).toMatchObject({ ticketeerId: "playground" });
    await expect(organizations.seedPlaygroundKey("playground", "trk_playgrnd_" + "q".repeat(43))).rejects.toThrow(/shares its first 12 characters/);
  });
});
