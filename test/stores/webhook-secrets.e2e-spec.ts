import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { OrganizationsError, OrganizationsService } from "../../src/auth/organizations.service";
import { OrganizationOnboardingService } from "../../src/callbacks/secrets/organization-onboarding.service";
import { generateWebhookSecret } from "../../src/callbacks/secrets/webhook-secret";
import { WebhookSecretsService } from "../../src/callbacks/secrets/webhook-secrets.service";
import { loadConfig } from "../../src/config/app-config";
import { openStoreDatabase, type StoreDatabase } from "../support/store-database";

const SECRETS_KEY = Buffer.alloc(32, 7).toString("base64");

let db: StoreDatabase;
/** Stores secrets readable, as before WEBHOOK_SECRETS_KEY was set. */
let plain: WebhookSecretsService;
let sealed: WebhookSecretsService;

beforeAll(async () => {
  db = await openStoreDatabase();
  plain = new WebhookSecretsService(db.dataSource, loadConfig({}));
  sealed = new WebhookSecretsService(db.dataSource, loadConfig({ WEBHOOK_SECRETS_KEY: SECRETS_KEY }));
});

afterAll(async () => {
  await db?.close();
});

async function storedSecrets(organizationId: string): Promise<{ secret: string; expires_at: Date | null }[]> {
  return await db.dataSource.query<
    {
      secret: string;
      expires_at: Date | null;
    }[]
  >(`SELECT secret, expires_at FROM webhook_secrets WHERE organization_id = $1 ORDER BY created_at`, [organizationId]);
}

function onboardingWith(secrets: WebhookSecretsService): OrganizationOnboardingService {
  return new OrganizationOnboardingService(db.dataSource, new OrganizationsService(db.dataSource), secrets);
}

describe("WebhookSecretsService", () => {
  it("stores a secret encrypted under the key, and reads it back to sign with", async () => {
    const organizationId = await db.organization("sealed");
    const secret = generateWebhookSecret();

    expect(await sealed.create(organizationId, secret)).toBe(secret);

    const [stored] = await storedSecrets(organizationId);
    expect(stored.secret).toMatch(/^enc:v1:/);
    expect(stored.secret).not.toContain(secret.slice("whsec_".length));
    expect((await sealed.activeSecrets([organizationId])).get(organizationId)).toEqual([secret]);
    await expect(plain.activeSecrets([organizationId])).rejects.toThrow(/WEBHOOK_SECRETS_KEY is not set/);
  });

  it("refuses a secret that is not whsec_ and base64 of at least 16 bytes", async () => {
    const organizationId = await db.organization("malformed");

    await expect(plain.create(organizationId, "whsec_short")).rejects.toThrow(/whsec_ followed by base64/);
    expect(await storedSecrets(organizationId)).toEqual([]);
  });

  it("rotates: the new secret signs first, the old ones until the grace period ends", async () => {
    const organizationId = await db.organization("rotating");
    const first = await plain.create(organizationId);

    const second = await plain.rotate(organizationId, 24);

    expect((await plain.activeSecrets([organizationId])).get(organizationId)).toEqual([second, first]);
    const [old, fresh] = await storedSecrets(organizationId);
    expect(fresh.expires_at).toBeNull();
    expect(old.expires_at!.getTime() - Date.now()).toBeGreaterThan(23.9 * 3_600_000);
    expect(old.expires_at!.getTime() - Date.now()).toBeLessThanOrEqual(24 * 3_600_000);

    const third = await plain.rotate(organizationId, 0);

    expect((await plain.activeSecrets([organizationId])).get(organizationId)).toEqual([third]);
  });

  it("never lengthens a grace period already running", async () => {
    const organizationId = await db.organization("short-grace");
    await plain.create(organizationId);
    await plain.rotate(organizationId, 1);

    await plain.rotate(organizationId, 48);

    const expiries = (await storedSecrets(organizationId)).map((row) =>
      row.expires_at === null ? null : Math.round((row.expires_at.getTime() - Date.now()) / 3_600_000),
    );
    expect(expiries).toEqual([1, 48, null]);
  });

  it("reads the active secrets of several organizations at once, none for one without", async () => {
    const [a, b, none] = await Promise.all(["many-a", "many-b", "many-none"].map((id) => db.organization(id)));
    const [secretA, secretB] = [await plain.create(a), await plain.create(b)];

    const active = await plain.activeSecrets([a, b, none]);

    expect(active.get(a)).toEqual([secretA]);
    expect(active.get(b)).toEqual([secretB]);
    expect(active.has(none)).toBe(false);
  });

  it("seeds the playground's secret once", async () => {
    const organizationId = await db.organization("seeded");
    const secret = generateWebhookSecret();

    await sealed.seed(organizationId, secret);
    await sealed.seed(organizationId, secret);

    expect((await sealed.activeSecrets([organizationId])).get(organizationId)).toEqual([secret]);
  });

  it("encrypts the secrets stored readable, once", async () => {
    const organizationId = await db.organization("readable");
    const secret = await plain.create(organizationId);
    const readable = await db.dataSource.query<{ count: number }[]>(`SELECT count(*)::int AS count FROM webhook_secrets WHERE secret NOT LIKE 'enc:%'`);

    expect(await sealed.encryptStored()).toBe(readable[0].count);
    expect(await sealed.encryptStored()).toBe(0);

    expect((await storedSecrets(organizationId))[0].secret).toMatch(/^enc:v1:/);
    expect((await sealed.activeSecrets([organizationId])).get(organizationId)).toEqual([secret]);
  });
});

describe("OrganizationOnboardingService", () => {
  it("creates an organization with its first webhook secret", async () => {
    const created = await onboardingWith(plain).createOrganization("onboarded", "Onboarded");

    expect(created).toMatchObject({ ticketeerId: "onboarded", name: "Onboarded", webhookSecret: expect.stringMatching(/^whsec_/) });
    expect((await plain.activeSecrets([created.id])).get(created.id)).toEqual([created.webhookSecret]);
  });

  it("leaves no organization behind when its secret cannot be stored", async () => {
    await expect(onboardingWith(plain).createOrganization("half-made", "Half-made", "whsec_short")).rejects.toThrow(/whsec_ followed by base64/);

    expect(await new OrganizationsService(db.dataSource).findOrganization("half-made")).toBeNull();
  });

  it("rotates by ticketeerId, refuses an unknown one, and refuses to encrypt without a key", async () => {
    const { id, webhookSecret } = await onboardingWith(plain).createOrganization("rotated", "Rotated");

    const rotated = await onboardingWith(plain).rotateWebhookSecret("rotated", 24);

    expect((await plain.activeSecrets([id])).get(id)).toEqual([rotated, webhookSecret]);
    await expect(onboardingWith(plain).rotateWebhookSecret("nobody", 24)).rejects.toThrow(new OrganizationsError("no organization nobody"));
    await expect(onboardingWith(plain).encryptStoredWebhookSecrets()).rejects.toThrow(
      new OrganizationsError("WEBHOOK_SECRETS_KEY is not set: there is nothing to encrypt with"),
    );
  });

  it("seeds the playground organization, key and secret once", async () => {
    const key = "trk_seedplay_" + "s".repeat(43);
    const secret = generateWebhookSecret();

    await onboardingWith(sealed).seedPlayground("seed-play", "Playground", key, secret);
    await onboardingWith(sealed).seedPlayground("seed-play", "Playground", key, secret);

    const organization = await new OrganizationsService(db.dataSource).findOrganization("seed-play");
    expect(organization).toMatchObject({ name: "Playground" });
    expect((await sealed.activeSecrets([organization!.id])).get(organization!.id)).toEqual([secret]);
    expect((await new OrganizationsService(db.dataSource).listKeys("seed-play")).map(({ prefix, label }) => ({ prefix, label }))).toEqual([
      { prefix: "trk_seedplay", label: "playground" },
    ]);
  });
});
