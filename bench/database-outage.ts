import { randomBytes } from "node:crypto";

import { startTcpProxy } from "../scripts/stack/tcp-proxy";
import { startBenchServer } from "./bench-server";
import { runDirectory } from "./stack/run-directory";

/**
 * `node -r @swc-node/register bench/database-outage.ts`: what a client sees of a 10 s database
 * outage. The api (a process of its own, on a database of its own) reaches PostgreSQL through a TCP proxy
 * that is closed for 10 s (connections refused, open ones cut) and reopened; a client sells one ticket
 * every 50 ms throughout. Prints the answers given during the outage by status and code, and how
 * long after the end the first sale was accepted again.
 */
const DATABASE_PORT = 5432;
const OUTAGE_MS = 10_000;
const SALE_EVERY_MS = 50;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function main(): Promise<void> {
  const proxy = await startTcpProxy(DATABASE_PORT);
  const logs = runDirectory("database-outage");
  const server = await startBenchServer({ APP_ROLE: "api", LOG_LEVEL: "fatal" }, logs.path, { databasePort: proxy.port });
  const { ticketeerId } = server;
  const api = { post: (path: string, body: unknown) => post(server.baseUrl, server.apiKey, path, body) };
  const eventId = `outage-${randomBytes(4).toString("hex")}`;
  const created = await api.post("/api/v1/events", { eventId, ticketeerId, currency: "EUR", callbackUrl: "https://integrator.example.com/callbacks" });
  if (created.status !== 200) throw new Error(`the event was not accepted: ${created.status} ${JSON.stringify(created.body)}`);

  const outage = { from: Number.POSITIVE_INFINITY, to: Number.POSITIVE_INFINITY };
  const during = new Map<string, number>();
  let firstAcceptedAfter: number | null = null;
  let selling = true;
  const seller = (async () => {
    while (selling) {
      const sentAt = Date.now();
      const sale = [{ eventId, ticketId: `t-${randomBytes(5).toString("hex")}`, price: "1", orderTime: 1_750_000_000 }];
      const answer = await api
        .post("/api/v1/sold", sale)
        .catch((error: unknown) => ({ status: 0, headers: new Headers(), body: { error: { code: String(error) } } }));
      if (sentAt >= outage.from && sentAt < outage.to) {
        const retryAfter = answer.headers.get("retry-after");
        const code = (answer.body as { error?: { code?: string } } | undefined)?.error?.code ?? "";
        const label = `${answer.status} ${code}${retryAfter ? ` (Retry-After ${retryAfter})` : ""}`.trim();
        during.set(label, (during.get(label) ?? 0) + 1);
      } else if (sentAt >= outage.to && answer.status === 200 && firstAcceptedAfter === null) {
        firstAcceptedAfter = Date.now() - outage.to;
      }
      await sleep(Math.max(0, SALE_EVERY_MS - (Date.now() - sentAt)));
    }
  })();

  await sleep(2_000);
  outage.from = Date.now();
  await proxy.close();
  await sleep(OUTAGE_MS);
  await proxy.open();
  outage.to = Date.now();
  await sleep(5_000);
  selling = false;
  await seller;
  await server.stop();
  await proxy.close();
  logs.finish(true);

  console.log(`Answers to the sales sent during a ${OUTAGE_MS / 1000} s database outage (one every ${SALE_EVERY_MS} ms):`);
  for (const [label, count] of [...during].sort((a, b) => b[1] - a[1])) console.log(`  ${count} × ${label}`);
  console.log(
    `First sale accepted ${firstAcceptedAfter === null ? "never (within 5 s)" : `${(firstAcceptedAfter / 1000).toFixed(1)} s`} after the database was back`,
  );
}

interface Answer {
  status: number;
  headers: Headers;
  body: unknown;
}

async function post(baseUrl: string, apiKey: string, path: string, body: unknown): Promise<Answer> {
  const response = await fetch(baseUrl + path, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": apiKey },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? (JSON.parse(text) as unknown) : undefined };
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
