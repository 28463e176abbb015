import { Wallet } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { apiClient } from "../support/api-client";
import { type Api, eventually, settled, stream, uid } from "../support/callbacks-e2e";
import { sqlOf, txPromises } from "../support/chain-e2e";

import { has, type Sample, scrapeMetrics, total } from "../support/metrics-scrape";

import { startTestApp, type TestApp } from "../support/test-app";
import { useChainApp } from "../support/chain-app";

const M = (name: string) => `ticket_registry_${name}`;

/** Every metric moved by the difference between two scrapes. */
const delta =
  (before: Sample[], after: Sample[]) =>
  (name: string, labels: Record<string, string> = {}) =>
    total(after, name, labels) - total(before, name, labels);

describe("GET /metrics from a request to its callbacks (app with its worker, a Hardhat chain and an HTTPS receiver)", () => {
  const chainApp = useChainApp({ receiver: true, env: { SIGNER_FUNDS_CHECK_MS: "200" } });

  it("answers in the Prometheus text format without an API key, with the Node process metrics, and stays out of the API docs", async () => {
    const scrape = await scrapeMetrics(chainApp.testApp.opsUrl);
    expect(scrape.status).toBe(200);
    expect(scrape.contentType).toContain("text/plain; version=0.0.4");
    expect(has(scrape.samples, "process_cpu_user_seconds_total")).toBe(true);
    expect(has(scrape.samples, "nodejs_heap_size_used_bytes")).toBe(true);
    expect(scrape.text).toContain(`# TYPE ${M("http_request_duration_seconds")} histogram`);
    const docs = await (await fetch(`${chainApp.testApp.baseUrl}/docs-json`)).json();
    expect(Object.keys(docs.paths)).not.toContain("/metrics");
  });

  it("moves every counter and histogram by what happened: accepted and refused actions, batches, gas, confirmations, callbacks, HTTP routes", async () => {
    const before = (await scrapeMetrics(chainApp.testApp.opsUrl)).samples;
    const path = "/metrics-callbacks";
    const eventId = uid("event");
    const streamed = [uid("ticket"), uid("ticket"), uid("ticket"), uid("ticket"), uid("ticket")];
    const answer = await chainApp.api.post("/stream", [
      { action: "newEvent", data: { eventId, currency: "EUR", callbackUrl: chainApp.receiver.url(path) } },
      ...streamed.map((ticketId) => ({ action: "soldTicket", data: { eventId, ticketId, price: "10" } })),
      { action: "soldTicket", data: { eventId, ticketId: streamed[0], price: "10" } },
    ]);
    expect(answer.body.data.map((item: { status: string }) => item.status)).toEqual([
      "success",
      "success",
      "success",
      "success",
      "success",
      "success",
      "error",
    ]);
    const sold = [uid("ticket"), uid("ticket")];
    const endpoint = txPromises(
      await chainApp.api.post(
        "/api/v1/sold",
        sold.map((ticketId) => ({ eventId, ticketId, price: "12.50" })),
      ),
    );
    const promises = [...answer.body.data.slice(0, 6).map((item: { actionPromise: string }) => item.actionPromise), ...endpoint];
    expect((await settled(chainApp.api, promises)).map((view) => view.status)).toEqual(Array(8).fill("confirmed"));
    expect((await chainApp.api.get(`/api/v1/tickets/${sold[0]}`)).status).toBe(200);
    expect((await fetch(`${chainApp.testApp.baseUrl}/stream`, { method: "POST", headers: { "content-type": "application/json" }, body: "[]" })).status).toBe(
      403,
    );
    await chainApp.receiver.waitForRequests(path, 8);
    const after = await eventually(
      async () => {
        const { samples } = await scrapeMetrics(chainApp.testApp.opsUrl);
        return total(samples, M("callback_attempts_total")) - total(before, M("callback_attempts_total")) >= 8 ? samples : undefined;
      },
      20_000,
      "8 callback attempts in the metrics",
    );
    const moved = delta(before, after);

    // Acceptance, by the kind the integrator used and the outcome.
    expect(moved(M("actions_total"), { kind: "newEvent", outcome: "accepted" })).toBe(1);
    expect(moved(M("actions_total"), { kind: "soldTicket", outcome: "accepted" })).toBe(5);
    expect(moved(M("actions_total"), { kind: "soldTicket", outcome: "refused", code: "ticket_exists" })).toBe(1);
    expect(moved(M("actions_total"), { kind: "sold", outcome: "accepted" })).toBe(2);

    // Batches: the sum of their sizes is every action sent; gas matches the ledger's receipts.
    const transactions = await sqlOf(chainApp.testApp)<{ gas_used: string; item_count: number }>(
      `SELECT gas_used, item_count FROM chain_transactions WHERE status = 'confirmed'`,
    );
    expect(transactions.length).toBeGreaterThan(0);
    expect(moved(M("batch_actions_sum"), { status: "confirmed" })).toBe(8);
    expect(moved(M("batch_actions_count"), { status: "confirmed" })).toBe(transactions.length);
    expect(moved(M("transaction_gas_used_sum"))).toBe(transactions.reduce((sum, tx) => sum + Number(tx.gas_used), 0));
    expect(moved(M("transaction_gas_per_action_count"))).toBe(transactions.length);
    expect(moved(M("transaction_gas_per_action_sum"))).toBeCloseTo(
      transactions.reduce((sum, tx) => sum + Number(tx.gas_used) / tx.item_count, 0),
      6,
    );
    expect(moved(M("action_confirmation_seconds_count"), { status: "confirmed" })).toBe(8);
    expect(moved(M("action_confirmation_seconds_sum"), { status: "confirmed" })).toBeGreaterThan(0);

    // Callbacks: eight delivered at the first attempt, none given up.
    expect(moved(M("callback_attempts_total"), { outcome: "success" })).toBe(8);
    expect(moved(M("callback_attempts_total"))).toBe(8);
    expect(moved(M("callback_attempt_duration_seconds_count"), { outcome: "success" })).toBe(8);
    expect(moved(M("callback_delivery_seconds_count"))).toBe(8);
    expect(total(after, M("callbacks_failed_total"))).toBe(0);

    // HTTP: route patterns, never the ids of a path; a refusal before routing still names its route.
    expect(moved(M("http_request_duration_seconds_count"), { method: "GET", route: "/api/v1/tickets/:ticketId", status_class: "2xx" })).toBe(1);
    expect(moved(M("http_request_duration_seconds_count"), { method: "POST", route: "/api/v1/sold", status_class: "2xx" })).toBe(1);
    expect(moved(M("http_request_duration_seconds_count"), { method: "POST", route: "/stream", status_class: "4xx" })).toBe(1);
    const httpLabels = after.filter((sample) => sample.name.startsWith(M("http_request_duration_seconds"))).flatMap((sample) => Object.values(sample.labels));
    for (const id of [eventId, ...streamed, ...sold])
      expect(
        httpLabels.some((value) => value.includes(id)),
        id,
      ).toBe(false);
  });

  it("shows an empty backlog once everything is confirmed and delivered, the queues, and each signer's balance and nonces", async () => {
    const signer = new Wallet(chainApp.chain.signerKeys[0]).address;
    const [{ count }] = await sqlOf(chainApp.testApp)<{ count: number }>(
      `SELECT count(DISTINCT nonce)::int AS count FROM chain_transactions WHERE status = 'confirmed'`,
    );
    const samples = await eventually(
      async () => {
        const scraped = (await scrapeMetrics(chainApp.testApp.opsUrl)).samples;
        const seenEveryTransaction = total(scraped, M("signer_nonce"), { signer, source: "chain_latest" }) === count;
        // The last callbacks' results are recorded in batches: on a loaded machine the backlog empties a moment after the chain.
        const backlogEmpty = total(scraped, M("outbox_callbacks"), { state: "due" }) === 0 && total(scraped, M("ledger_actions"), { status: "pending" }) === 0;
        return seenEveryTransaction && backlogEmpty ? scraped : undefined;
      },
      20_000,
      "the funds monitor to see every transaction and the backlog to empty",
    );
    expect(total(samples, M("ledger_actions"), { status: "waiting_broadcast" })).toBe(0);
    expect(total(samples, M("ledger_actions"), { status: "pending" })).toBe(0);
    expect(total(samples, M("outbox_callbacks"), { state: "due" })).toBe(0);
    expect(has(samples, M("queue_jobs"), { queue: "chain-writer", state: "waiting" })).toBe(true);
    expect(total(samples, M("signer_nonce"), { signer, source: "ledger_next" })).toBe(count);
    expect(total(samples, M("signer_balance_wei"), { signer })).toBe(Number(await chainApp.chain.provider.getBalance(signer)));
    expect(total(samples, M("signer_funds_needed_wei"), { signer })).toBeGreaterThan(0);
  });
});

describe("GET /metrics while actions wait for a chain (no chain configured: nothing takes them)", () => {
  let testApp: TestApp;
  let api: Api;

  beforeAll(async () => {
    testApp = await startTestApp();
    const organization = await testApp.organization();
    api = apiClient(testApp.baseUrl, organization.key);
  });

  afterAll(async () => {
    await testApp?.close();
  });

  it("counts the waiting actions, their age, the flush jobs queued for them and the callbacks due", async () => {
    const eventId = uid("event");
    const tickets = [uid("ticket"), uid("ticket"), uid("ticket")];
    await stream(api, [
      { action: "newEvent", data: { eventId, currency: "EUR", callbackUrl: "https://integrator.example.com/callbacks" } },
      ...tickets.map((ticketId) => ({ action: "soldTicket", data: { eventId, ticketId, price: "1" } })),
    ]);
    await stream(api, [{ action: "updateEvent", data: { eventId, callbackUrl: "https://integrator.example.com/other" } }]);
    const { samples } = await scrapeMetrics(testApp.opsUrl);
    expect(total(samples, M("ledger_actions"), { status: "waiting_broadcast" })).toBe(4);
    expect(total(samples, M("ledger_actions"), { status: "pending" })).toBe(0);
    expect(total(samples, M("ledger_oldest_waiting_seconds"))).toBeGreaterThanOrEqual(0);
    expect(has(samples, M("ledger_oldest_waiting_seconds"))).toBe(true);
    // One flush job per acceptance that put something on the way to the chain; no worker takes it.
    expect(total(samples, M("queue_jobs"), { queue: "chain-writer", state: "waiting" })).toBe(1);
    // The updateEvent of the callbackUrl alone has nothing on chain: its callback is due at once (delivery is off here).
    expect(total(samples, M("outbox_callbacks"), { state: "due" })).toBe(1);
    expect(has(samples, M("signer_balance_wei"))).toBe(false);
  });
});

describe("GET /metrics on the worker role", () => {
  let worker: TestApp;

  beforeAll(async () => {
    worker = await startTestApp({ APP_ROLE: "worker" });
  });

  afterAll(async () => {
    await worker?.close();
  });

  it("serves the same metrics without an API key, its own requests timed by route", async () => {
    await scrapeMetrics(worker.baseUrl);
    const scrape = await scrapeMetrics(worker.baseUrl);
    expect(scrape.status).toBe(200);
    expect(has(scrape.samples, M("ledger_actions"), { status: "waiting_broadcast" })).toBe(true);
    expect(total(scrape.samples, M("http_request_duration_seconds_count"), { method: "GET", route: "/metrics", status_class: "2xx" })).toBe(1);
  });
});
