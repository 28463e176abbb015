import { randomUUID } from "node:crypto";
import { connect, type Socket } from "node:net";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { startTestApp, type TestApp } from "../support/test-app";

/**
 * Slow clients: a connection whose request headers, or whole request, arrive slower than
 * HTTP_HEADERS_TIMEOUT_MS / HTTP_REQUEST_TIMEOUT_MS is answered 408 and closed, even a key
 * holder's; a long answer (a live status stream) is not cut. This app's limits are short (0.5 s
 * and 1 s); each slow client here would go on sending for ten times as long.
 */
const HEADERS_TIMEOUT_MS = 500;
const REQUEST_TIMEOUT_MS = 1_000;
/** How long a slow client goes on sending before it gives up by itself. */
const CLIENT_GIVES_UP_MS = 10 * REQUEST_TIMEOUT_MS;
const DRIP_EVERY_MS = 100;

let testApp: TestApp;
let apiKey: string;

beforeAll(async () => {
  testApp = await startTestApp({ HTTP_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS), HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS) });
  apiKey = (await testApp.organization()).key;
});

afterAll(async () => {
  await testApp?.close();
});

interface SlowExchange {
  /** What the server sent back. */
  answer: string;
  /** Whether the server closed the connection before the client had sent everything it meant to. */
  cutOff: boolean;
}

/**
 * Sends `head` at once, then one piece from `drip` every DRIP_EVERY_MS until CLIENT_GIVES_UP_MS
 * have passed or the server closes the connection.
 */
function slowClient(head: string, drip: string): Promise<SlowExchange> {
  const { port } = new URL(testApp.baseUrl);
  return new Promise((resolve) => {
    const socket: Socket = connect(Number(port), "127.0.0.1");
    let answer = "";
    let pieces = CLIENT_GIVES_UP_MS / DRIP_EVERY_MS;
    let timer: NodeJS.Timeout | undefined;
    const finish = (cutOff: boolean) => {
      clearInterval(timer);
      socket.destroy();
      resolve({ answer, cutOff });
    };
    socket.on("connect", () => {
      socket.write(head);
      timer = setInterval(() => {
        if (pieces-- === 0) finish(false);
        else socket.write(drip);
      }, DRIP_EVERY_MS);
    });
    socket.on("data", (chunk: Buffer) => (answer += chunk.toString("latin1")));
    socket.on("close", () => finish(true));
    socket.on("error", () => undefined);
  });
}

describe("slow requests", () => {
  it("a client that sends its headers slowly is answered 408 and cut off", async () => {
    const exchange = await slowClient(`GET /api/v1/chain HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Api-Key: ${apiKey}\r\n`, "X-Slow: 1\r\n");
    expect(exchange.cutOff).toBe(true);
    expect(exchange.answer).toMatch(/^HTTP\/1\.1 408 /);
  });

  it("a key holder that sends its body slowly is answered 408 and cut off", async () => {
    const head =
      `POST /api/v1/sold HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Api-Key: ${apiKey}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${CLIENT_GIVES_UP_MS}\r\n\r\n[`;
    const exchange = await slowClient(head, " ");
    expect(exchange.cutOff).toBe(true);
    expect(exchange.answer).toMatch(/^HTTP\/1\.1 408 /);
  });

  it("a live status stream stays open longer than the request may take to arrive", async () => {
    const controller = new AbortController();
    const response = await fetch(`${testApp.baseUrl}/api/v1/actions/events?promises=${randomUUID()}`, {
      headers: { "x-api-key": apiKey },
      signal: controller.signal,
    });
    expect(response.status).toBe(200);
    let ended = false;
    const reading = (async () => {
      const reader = response.body!.getReader();
      while (!(await reader.read()).done);
    })().then(
      () => (ended = true),
      () => (ended = !controller.signal.aborted),
    );
    await new Promise((resolve) => setTimeout(resolve, 3 * REQUEST_TIMEOUT_MS));
    expect(ended).toBe(false);
    controller.abort();
    await reading;
  });
});
