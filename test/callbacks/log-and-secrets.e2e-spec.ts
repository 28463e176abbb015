import { Webhook } from "standardwebhooks";
import { DataSource } from "typeorm";
import { describe, expect, it } from "vitest";

import { OrganizationOnboardingService } from "../../src/callbacks/secrets/organization-onboarding.service";
import { apiClient } from "../support/api-client";
import {
  type Api,
  callbackOf,
  callbackWhen,
  eventWithTickets,
  hmacMatches,
  requestsFor,
  signaturesOf,
  stream,
  updateTicketOf,
  updateTickets,
  verifyCallback,
  webhookHeaders,
} from "../support/callbacks-e2e";
import { useChainApp } from "../support/chain-app";

/** The delivery log, redelivery and its tenancy, exhausted retries, and webhook secret rotation. */
const MAX_ATTEMPTS = 3;

interface Tenant {
  ticketeerId: string;
  secret: string;
  api: Api;
}

async function tenant(): Promise<Tenant> {
  const organization = await chainApp.testApp.organization();
  return { ticketeerId: organization.ticketeerId, secret: organization.webhookSecret, api: apiClient(chainApp.testApp.baseUrl, organization.key) };
}

const chainApp = useChainApp({
  receiver: true,
  env: { CALLBACK_TIMEOUT_MS: "2000", CALLBACK_LEASE_MS: "5000", CALLBACK_MAX_ATTEMPTS: String(MAX_ATTEMPTS) },
});

describe("the delivery log and redelivery", () => {
  it("lists only the organization's own callbacks by status and event, and redelivers only its own", async () => {
    const [alice, bob] = await Promise.all([tenant(), tenant()]);
    const path = "/tenants";
    const [aliceSetup, bobSetup] = await Promise.all([
      eventWithTickets(alice.api, chainApp.receiver.url(path), 2),
      eventWithTickets(bob.api, chainApp.receiver.url(path), 1),
    ]);
    // Both organizations use the same eventId: ids are per organization, and so are their logs.
    const sharedEventId = `shared-${aliceSetup.eventId}`;
    const eventOf = (who: Tenant, ticketIds: string[]) =>
      stream(who.api, [
        { action: "newEvent", data: { eventId: sharedEventId, eventName: "Same id", currency: "EUR", callbackUrl: chainApp.receiver.url(path) } },
        ...ticketIds.map((ticketId) => ({ action: "soldTicket", data: { eventId: sharedEventId, ticketId, price: "1.00", orderTime: 1_750_000_000 } })),
      ]);
    for (const ticketId of [...aliceSetup.ticketIds, ...bobSetup.ticketIds]) chainApp.receiver.script(path, [{ status: 410 }], {}, updateTicketOf(ticketId));
    const [aliceGone, aliceAlsoGone] = await updateTickets(alice.api, aliceSetup.ticketIds);
    const [bobGone] = await updateTickets(bob.api, bobSetup.ticketIds);
    const [[aliceShared], [bobShared]] = await Promise.all([eventOf(alice, []), eventOf(bob, [])]);

    const aliceView = await callbackWhen(alice.api, aliceSetup.eventId, aliceGone);
    await callbackWhen(alice.api, aliceSetup.eventId, aliceAlsoGone);
    const bobView = await callbackWhen(bob.api, bobSetup.eventId, bobGone);
    expect(aliceView).toMatchObject({
      status: "failed",
      attempts: 1,
      lastStatusCode: 410,
      eventId: aliceSetup.eventId,
      ticketId: aliceSetup.ticketIds[0],
      action: "updateTicket",
    });

    const failed = await alice.api.get(`/api/v1/callbacks?status=failed&eventId=${aliceSetup.eventId}`);
    expect(failed.status).toBe(200);
    expect(failed.body.map((view: any) => view.actionPromise).sort()).toEqual([aliceGone, aliceAlsoGone].sort());
    expect(failed.body.every((view: any) => view.status === "failed" && view.eventId === aliceSetup.eventId)).toBe(true);
    // Delivered ones (the event's and the sales' callbacks) are in the log too, under their status.
    const delivered = (await alice.api.get(`/api/v1/callbacks?status=delivered&eventId=${aliceSetup.eventId}`)).body;
    expect(delivered.map((view: any) => view.actionPromise).sort()).toEqual([...aliceSetup.promises].sort());
    // No eventId: every failed callback of the organization, and only its own.
    const allFailed = (await alice.api.get("/api/v1/callbacks?status=failed")).body.map((view: any) => view.callbackId);
    expect(allFailed).toContain(aliceView.callbackId);
    expect(allFailed).not.toContain(bobView.callbackId);
    expect((await bob.api.get(`/api/v1/callbacks?status=failed&eventId=${aliceSetup.eventId}`)).body).toEqual([]);
    // The same eventId in both organizations: each sees its own event's callback only.
    await Promise.all([callbackWhen(alice.api, sharedEventId, aliceShared), callbackWhen(bob.api, sharedEventId, bobShared)]);
    expect((await alice.api.get(`/api/v1/callbacks?eventId=${sharedEventId}`)).body.map((view: any) => view.actionPromise)).toEqual([aliceShared]);
    expect((await bob.api.get(`/api/v1/callbacks?eventId=${sharedEventId}`)).body.map((view: any) => view.actionPromise)).toEqual([bobShared]);

    // Another organization's callback does not exist for Bob: not to read, not to redeliver.
    const notFound = { status: "error", error: expect.objectContaining({ code: "callback_not_found" }) };
    const stolen = await bob.api.post(`/api/v1/callbacks/${aliceView.callbackId}/redeliver`, {});
    expect(stolen.status).toBe(404);
    expect(stolen.body).toMatchObject(notFound);
    expect((await bob.api.get(`/api/v1/callbacks/${aliceView.callbackId}`)).status).toBe(404);
    expect((await bob.api.post("/api/v1/callbacks/not-a-uuid/redeliver", {})).status).toBe(404);
    expect((await bob.api.post("/api/v1/callbacks/00000000-0000-4000-8000-000000000000/redeliver", {})).body).toMatchObject(notFound);
    expect(await callbackOf(alice.api, aliceSetup.eventId, aliceGone)).toMatchObject({ status: "failed", attempts: 1 });
    expect(requestsFor(chainApp.receiver.requests(path), aliceGone)).toHaveLength(1);

    // Alice redelivers hers: sent again, with the same webhook-id, and logged.
    chainApp.receiver.script(path, [{ status: 200 }], {}, updateTicketOf(aliceSetup.ticketIds[0]));
    const redelivered = await alice.api.post(`/api/v1/callbacks/${aliceView.callbackId}/redeliver`, {});
    expect(redelivered.status).toBe(200);
    expect(redelivered.body).toMatchObject({ callbackId: aliceView.callbackId, status: "pending", attempts: 0 });
    const after = await callbackWhen(alice.api, aliceSetup.eventId, aliceGone, (view) => view.status === "delivered");
    expect(after.attemptLog.map((attempt: any) => attempt.statusCode)).toEqual([410, 200]);
    const requests = requestsFor(chainApp.receiver.requests(path), aliceGone);
    expect(requests.map((request) => request.headers["webhook-id"])).toEqual([aliceView.callbackId, aliceView.callbackId]);
    verifyCallback(requests[1], alice.secret);
    // Bob's stays as it was.
    expect(await callbackOf(bob.api, bobSetup.eventId, bobGone)).toMatchObject({ status: "failed", attempts: 1 });
    const single = await alice.api.get(`/api/v1/callbacks/${aliceView.callbackId}`);
    expect(single.body).toMatchObject({ callbackId: aliceView.callbackId, status: "delivered", attempts: 1 });
  });

  it("keeps a callback whose retries are exhausted in the log as failed, with every attempt", async () => {
    const { api } = await tenant();
    const path = "/down";
    const { eventId, ticketIds } = await eventWithTickets(api, chainApp.receiver.url(path), 1);
    chainApp.receiver.script(path, [], { status: 500 }, updateTicketOf(ticketIds[0]));
    const [promise] = await updateTickets(api, ticketIds);

    const view = await callbackWhen(api, eventId, promise);
    expect(view).toMatchObject({ status: "failed", attempts: MAX_ATTEMPTS, lastStatusCode: 500, nextAttemptAt: null });
    expect(view.attemptLog.map((attempt: any) => attempt.statusCode)).toEqual(Array(MAX_ATTEMPTS).fill(500));
    expect((await api.get(`/api/v1/callbacks?status=failed&eventId=${eventId}`)).body.map((entry: any) => entry.callbackId)).toEqual([view.callbackId]);
    expect((await api.get("/api/v1/callbacks?status=lost")).body.error).toMatchObject({ code: "invalid_field", field: "status" });
  });
});

describe("webhook secret rotation", () => {
  it("signs with the old and the new secret during the grace period, then with the new one only", async () => {
    const { ticketeerId, secret: oldSecret, api } = await tenant();
    const path = "/rotation";
    const { eventId, ticketIds } = await eventWithTickets(api, chainApp.receiver.url(path), 1);
    const [ticketId] = ticketIds;
    const [before] = await updateTickets(api, [ticketId]);
    await callbackWhen(api, eventId, before);
    const [beforeRequest] = requestsFor(chainApp.receiver.requests(path), before);
    expect(signaturesOf(beforeRequest)).toHaveLength(1);
    verifyCallback(beforeRequest, oldSecret);

    // What `npm run cli -- rotate-webhook-secret` does.
    const newSecret = await chainApp.testApp.app.get(OrganizationOnboardingService).rotateWebhookSecret(ticketeerId, 24);
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(oldSecret);
    const [during] = await updateTickets(api, [ticketId]);
    await callbackWhen(api, eventId, during);
    const [duringRequest] = requestsFor(chainApp.receiver.requests(path), during);
    const signatures = signaturesOf(duringRequest);
    expect(signatures).toHaveLength(2);
    // Each signature verifies with its own secret alone, by both verifiers; a receiver holding either secret accepts the callback.
    const verifiedBy = (secret: string) => signatures.filter((signature) => hmacMatches(duringRequest.body, webhookHeaders(duringRequest, signature), secret));
    expect(verifiedBy(newSecret)).toHaveLength(1);
    expect(verifiedBy(oldSecret)).toHaveLength(1);
    expect(verifiedBy(newSecret)[0]).not.toBe(verifiedBy(oldSecret)[0]);
    verifyCallback(duringRequest, newSecret, webhookHeaders(duringRequest, verifiedBy(newSecret)[0]));
    verifyCallback(duringRequest, oldSecret, webhookHeaders(duringRequest, verifiedBy(oldSecret)[0]));
    expect(() => new Webhook(newSecret).verify(duringRequest.body, webhookHeaders(duringRequest, verifiedBy(oldSecret)[0]))).toThrow();
    verifyCallback(duringRequest, newSecret);
    verifyCallback(duringRequest, oldSecret);

    // The grace period ends (moved into the past rather than waited for).
    await chainApp.testApp.app.get(DataSource).query(`UPDATE webhook_secrets SET expires_at = now() - interval '1 second' WHERE secret = $1`, [oldSecret]);
    const [after] = await updateTickets(api, [ticketId]);
    await callbackWhen(api, eventId, after);
    const [afterRequest] = requestsFor(chainApp.receiver.requests(path), after);
    expect(signaturesOf(afterRequest)).toHaveLength(1);
    verifyCallback(afterRequest, newSecret);
    expect(() => new Webhook(oldSecret).verify(afterRequest.body, webhookHeaders(afterRequest))).toThrow("No matching signature found");
    expect(hmacMatches(afterRequest.body, webhookHeaders(afterRequest), oldSecret)).toBe(false);
  });
});
