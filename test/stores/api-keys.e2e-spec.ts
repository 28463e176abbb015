import { createHash } from "node:crypto";

import type { Request } from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { AuthService, LAST_USED_RESOLUTION_SECONDS } from "../../src/auth/auth.service";
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

    expect(await auth.authenticate(key)).toEqual({
      id: organization.id,
      ticketeerId: "acme",
      name: "Acme Tickets",
      keyPrefix: key.slice(0, 12),
      keyScope: "full",
    });
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

/** A request as Express hands it to the key check: the key's header, the client address it read. */
function requestWith(key: string | undefined, ip: string): Request {
  return { headers: key === undefined ? {} : { "x-api-key": key }, ip, socket: { remoteAddress: "127.0.0.1" } } as unknown as Request;
}

async function lastUsed(prefix: string): Promise<Date | null> {
  const [row] = await db.dataSource.query<{ last_used_at: Date | null }[]>(`SELECT last_used_at FROM api_keys WHERE prefix = $1`, [prefix]);
  return row.last_used_at;
}

describe("AuthService: scopes, IP ranges and the last use", () => {
  it("stores a key's scope and IP ranges, as PostgreSQL's cidr writes them, and keeps them through a rotation", async () => {
    await organizations.createOrganization("door-co", "Door Co");
    const door = await organizations.issueKey("door-co", "door-1", { scope: "scan", allowedIps: ["203.0.113.0/24", "2001:DB8::/48", "198.51.100.7"] });
    const reader = await organizations.issueKey("door-co", "dashboard", { scope: "read" });

    expect(await auth.authenticate(door.key)).toMatchObject({ ticketeerId: "door-co", keyScope: "scan" });
    expect(await auth.authenticate(reader.key)).toMatchObject({ keyScope: "read" });
    const rotated = await organizations.rotateKey(door.prefix);
    expect(await auth.authenticate(rotated.key)).toMatchObject({ keyScope: "scan" });
    const listed = (await organizations.listKeys("door-co")).map(({ label, scope, allowedIps, revokedAt }) => ({
      label,
      scope,
      allowedIps,
      revoked: !!revokedAt,
    }));
    expect(listed).toEqual([
      { label: "door-1", scope: "scan", allowedIps: ["203.0.113.0/24", "2001:db8::/48", "198.51.100.7/32"], revoked: true },
      { label: "dashboard", scope: "read", allowedIps: null, revoked: false },
      { label: "door-1", scope: "scan", allowedIps: ["203.0.113.0/24", "2001:db8::/48", "198.51.100.7/32"], revoked: false },
    ]);
  });

  it("refuses an unknown scope and a bad range, naming them; the table refuses them too", async () => {
    await organizations.createOrganization("strict", "Strict");

    await expect(organizations.issueKey("strict", "x", { scope: "admin" as never })).rejects.toThrow(
      new OrganizationsError('scope "admin" is not one of full, scan, read'),
    );
    await expect(organizations.issueKey("strict", "x", { allowedIps: ["10.0.0.1/8"] })).rejects.toThrow(
      new OrganizationsError('allowed IPs "10.0.0.1/8" has bits set after its /8 prefix: the range is 10.0.0.0/8'),
    );
    expect(await organizations.listKeys("strict")).toEqual([]);
    const organizationId = (await organizations.requireOrganization("strict")).id;
    const insert = (scope: string, ranges: string | null) =>
      db.dataSource.query(`INSERT INTO api_keys (organization_id, prefix, secret_hash, scope, allowed_ips) VALUES ($1, $2, 'h', $3, $4)`, [
        organizationId,
        `trk_${Math.random().toString(36).slice(2, 10)}`,
        scope,
        ranges,
      ]);
    await expect(insert("admin", null)).rejects.toThrow(/api_keys_scope_check/);
    await expect(insert("scan", "{10.0.0.1/8}")).rejects.toThrow(/invalid cidr value/);
    await expect(insert("scan", "{}")).rejects.toThrow(/api_keys_allowed_ips_check/);
  });

  it("admits a key from its IP ranges only, and a key without ranges from anywhere", async () => {
    await organizations.createOrganization("venue", "Venue");
    const bound = await organizations.issueKey("venue", "door", { scope: "scan", allowedIps: ["203.0.113.0/24", "2001:db8:1::/48"] });
    const free = await organizations.issueKey("venue", "office");

    expect(await auth.admit(requestWith(bound.key, "203.0.113.200"))).toMatchObject({ admitted: { ticketeerId: "venue", keyScope: "scan" } });
    expect(await auth.admit(requestWith(bound.key, "::ffff:203.0.113.200"))).toMatchObject({ admitted: { keyPrefix: bound.prefix } });
    expect(await auth.admit(requestWith(bound.key, "2001:db8:1:77::1"))).toMatchObject({ admitted: { keyPrefix: bound.prefix } });
    for (const elsewhere of ["203.0.114.1", "192.0.2.1", "2001:db8:2::1"]) {
      expect(await auth.admit(requestWith(bound.key, elsewhere)), elsewhere).toEqual({ refused: { message: "Forbidden", code: "key_ip" } });
    }
    expect(await auth.admit(requestWith(free.key, "192.0.2.1"))).toMatchObject({ admitted: { keyPrefix: free.prefix, keyScope: "full" } });
    expect(await auth.admit(requestWith(tampered(bound.key), "203.0.113.1"))).toEqual({ refused: { message: "Forbidden" } });
    expect(await auth.admit(requestWith(undefined, "203.0.113.1"))).toEqual({ refused: { message: "Forbidden" } });
  });

  it("records a key's last use when it admits a request, not when it refuses one, and then at most once a minute", async () => {
    await organizations.createOrganization("used", "Used");
    const issued = await organizations.issueKey("used", "door", { allowedIps: ["203.0.113.0/24"] });

    await auth.admit(requestWith(issued.key, "192.0.2.1"));
    expect(await lastUsed(issued.prefix)).toBeNull();
    await auth.admit(requestWith(issued.key, "203.0.113.1"));
    const first = await lastUsed(issued.prefix);
    expect(first).toBeInstanceOf(Date);

    // Within the minute: the stored use stays as it is.
    const recent = new Date(Date.now() - (LAST_USED_RESOLUTION_SECONDS / 2) * 1000);
    await db.dataSource.query(`UPDATE api_keys SET last_used_at = $2 WHERE prefix = $1`, [issued.prefix, recent]);
    await auth.admit(requestWith(issued.key, "203.0.113.1"));
    expect(await lastUsed(issued.prefix)).toEqual(recent);

    // Older than that: the next use is written.
    const stale = new Date(Date.now() - (LAST_USED_RESOLUTION_SECONDS + 5) * 1000);
    await db.dataSource.query(`UPDATE api_keys SET last_used_at = $2 WHERE prefix = $1`, [issued.prefix, stale]);
    await auth.admit(requestWith(issued.key, "203.0.113.1"));
    expect((await lastUsed(issued.prefix))!.getTime()).toBeGreaterThan(stale.getTime() + LAST_USED_RESOLUTION_SECONDS * 1000);
  });

  it("writes a burst of one key's requests, on two instances at once, as one update of its row", async () => {
    await organizations.createOrganization("burst", "Burst");
    const issued = await organizations.issueKey("burst", "door");
    await db.dataSource.query(`CREATE TABLE key_row_updates (prefix text)`);
    await db.dataSource.query(`
      CREATE FUNCTION count_key_row_update() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN INSERT INTO key_row_updates VALUES (NEW.prefix); RETURN NEW; END $$`);
    await db.dataSource.query(`CREATE TRIGGER api_keys_counted BEFORE UPDATE ON api_keys FOR EACH ROW EXECUTE FUNCTION count_key_row_update()`);
    try {
      const instances = [new AuthService(db.dataSource), new AuthService(db.dataSource)];

      const admissions = await Promise.all(Array.from({ length: 40 }, (_, index) => instances[index % 2].admit(requestWith(issued.key, "203.0.113.1"))));

      expect(admissions.every((admission) => admission.admitted?.keyPrefix === issued.prefix)).toBe(true);
      const [{ count }] = await db.dataSource.query<{ count: number }[]>(`SELECT count(*)::int AS count FROM key_row_updates WHERE prefix = $1`, [
        issued.prefix,
      ]);
      expect(count).toBe(1);
      expect(await lastUsed(issued.prefix)).toBeInstanceOf(Date);
    } finally {
      await db.dataSource.query(`DROP TRIGGER api_keys_counted ON api_keys`);
      await db.dataSource.query(`DROP FUNCTION count_key_row_update()`);
      await db.dataSource.query(`DROP TABLE key_row_updates`);
    }
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
