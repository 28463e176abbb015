import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { packClient } from "../../client/pack";
import { signedHeaders } from "../../src/callbacks/delivery/callback-signing";
import { CALLBACK_URL, id } from "../support/fixtures";
import { startTestApp, type TestApp } from "../support/test-app";

/**
 * The integrators' package as they get it: client/ built and packed with npm, the tarball installed
 * into a project of its own (openapi-fetch from the registry, nothing from this repository), then
 * loaded with `require` and with `import` and pointed at the running app: an event registered, its
 * action's status read, a callback the service signed verified. The project's TypeScript file is
 * type-checked against the package's own declarations, under Node's module resolution.
 */

const TSC = require.resolve("typescript/bin/tsc");
const PACKAGE = "@ticket-registry/client";

let scratch: string;
let testApp: TestApp;
let organization: Awaited<ReturnType<TestApp["organization"]>>;

/** What both consumers do, given the package's exports: prints one JSON line of what they saw. */
const consumerBody = `
const { BASE_URL, API_KEY, TICKETEER_ID, EVENT_ID, CALLBACK_URL, SECRET, SIGNED } = process.env;
const registry = createRegistryClient({ baseUrl: BASE_URL, apiKey: API_KEY });
const accepted = await registry.POST("/api/v1/events", {
  body: { eventId: EVENT_ID, ticketeerId: TICKETEER_ID, currency: "EUR", callbackUrl: CALLBACK_URL },
});
const status = await registry.GET("/api/v1/actions/{promise}", { params: { path: { promise: accepted.data.txPromise } } });
const refused = await createRegistryClient({ baseUrl: BASE_URL, apiKey: "trk_wrong" }).GET("/api/v1/chain");
const signed = JSON.parse(SIGNED);
const callback = verifyWebhook(signed.body, signed.headers, { secret: SECRET });
let forged = null;
try {
  verifyWebhook(signed.body.replace("confirmed", "error"), signed.headers, { secret: SECRET });
} catch (error) {
  forged = error instanceof WebhookVerificationError ? error.name : String(error);
}
const abiFunctions = ticketRegistryAbi.filter((entry) => entry.type === "function").map((entry) => entry.name);
console.log(JSON.stringify({
  accepted: { status: accepted.response.status, eventId: accepted.data.eventId },
  action: { status: status.response.status, kind: status.data.action },
  refused: refused.response.status,
  callback: callback.actionPromise,
  forged,
  ownerOf: abiFunctions.includes("ownerOf"),
}));
`;

const CONSUMERS = {
  "consumer.cjs": `const { createRegistryClient, verifyWebhook, WebhookVerificationError, ticketRegistryAbi } = require("${PACKAGE}");\n(async () => {${consumerBody}})();\n`,
  "consumer.mjs": `import { createRegistryClient, verifyWebhook, WebhookVerificationError, ticketRegistryAbi } from "${PACKAGE}";\n${consumerBody}`,
};

/** Type-checked only: the declarations must type the paths and bodies (an unknown path is an error). */
const TYPED_CONSUMER = `
import { createRegistryClient, type CallbackBody, type RegistryClient, ticketRegistryAbi } from "${PACKAGE}";

const registry: RegistryClient = createRegistryClient({ baseUrl: "https://registry.example.com", apiKey: "trk_example" });
export async function sell(): Promise<string | undefined> {
  const { data } = await registry.POST("/api/v1/sold", { body: [{ eventId: "e-1", ticketId: "t-1", price: "49.95" }] });
  // @ts-expect-error: no such path in the document
  await registry.GET("/api/v1/nowhere");
  // @ts-expect-error: a sale needs its ticketId
  await registry.POST("/api/v1/sold", { body: [{ eventId: "e-1", price: "49.95" }] });
  return data?.[0]?.txPromise;
}
export const action: CallbackBody["action"] = "sold";
export const firstEntry: (typeof ticketRegistryAbi)[number]["type"] = ticketRegistryAbi[0].type;
`;

/** Runs a command in the integrator's project, without blocking: the app answering it runs in this process. */
async function run(command: string, args: string[], env: Record<string, string> = {}): Promise<string> {
  const { stdout } = await promisify(execFile)(command, args, { cwd: scratch, encoding: "utf8", env: { ...process.env, ...env } });
  return stdout;
}

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), "registry-client-"));
  const tarball = packClient(join(scratch, "packed"));
  writeFileSync(join(scratch, "package.json"), JSON.stringify({ name: "integrator", private: true }));
  await run("npm", ["install", tarball, "--no-audit", "--no-fund", "--prefer-offline", "--no-package-lock"]);
  testApp = await startTestApp();
  organization = await testApp.organization();
});

afterAll(async () => {
  await testApp?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe("the packed client package", () => {
  it.each(Object.keys(CONSUMERS))("works from %s against the running service", async (file) => {
    writeFileSync(join(scratch, file), CONSUMERS[file as keyof typeof CONSUMERS]);
    const body = JSON.stringify({ actionPromise: "00000000-0000-4000-8000-000000000001", status: "confirmed" });
    const headers = signedHeaders("callback-1", body, [organization.webhookSecret]);
    const output = await run("node", [file], {
      BASE_URL: testApp.baseUrl,
      API_KEY: organization.key,
      TICKETEER_ID: organization.ticketeerId,
      EVENT_ID: id("ev-package"),
      CALLBACK_URL,
      SECRET: organization.webhookSecret,
      SIGNED: JSON.stringify({ body, headers }),
    });
    expect(JSON.parse(output)).toEqual({
      accepted: { status: 200, eventId: expect.stringMatching(/^ev-package-/) },
      action: { status: 200, kind: "newEvent" },
      refused: 403,
      callback: "00000000-0000-4000-8000-000000000001",
      forged: "WebhookVerificationError",
      ownerOf: true,
    });
  });

  it("types its requests from its own declarations (an integrator's TypeScript under Node's module resolution)", async () => {
    writeFileSync(join(scratch, "typed.ts"), TYPED_CONSUMER);
    const compilerOptions = { module: "nodenext", moduleResolution: "nodenext", target: "ES2022", strict: true, noEmit: true, types: [] };
    writeFileSync(join(scratch, "tsconfig.json"), JSON.stringify({ compilerOptions, files: ["typed.ts"] }));
    await expect(run(process.execPath, [TSC, "-p", "tsconfig.json"])).resolves.toBe("");
  });
});
