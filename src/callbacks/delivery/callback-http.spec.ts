import type { LookupAddress } from "node:dns";
import https from "node:https";
import net, { type LookupFunction } from "node:net";
import { constants } from "node:os";
import tls from "node:tls";

import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";

import { type HttpsReceiver, startHttpsReceiver } from "../../../test/support/https-receiver";
import { SPECIAL_RANGES } from "../../../test/support/special-addresses";
import { SILENT, startTestDnsServer, type TestDnsServer } from "../../../test/support/test-dns-server";
import { CallbackHttp, createPublicAgent } from "./callback-http";

/**
 * SSRF: refused addresses are refused before any socket connects to them. Every test here runs under
 * a guard on the TCP handle (the last step before the connect system call): it records each connect
 * and lets only loopback through, so even a broken check could not reach another address, and an
 * empty record proves that nothing tried.
 */
const { TCP } = (process as unknown as { binding: (name: string) => any }).binding("tcp_wrap");
const originalConnect = TCP.prototype.connect;
const originalConnect6 = TCP.prototype.connect6;
const connects: string[] = [];
const REFUSED = -constants.errno.ECONNREFUSED;

function guard(original: (...args: unknown[]) => number) {
  return function (this: unknown, request: unknown, address: string, port: number): number {
    connects.push(`${address}:${port}`);
    if (address === "127.0.0.1" || address === "::1") return original.call(this, request, address, port);
    return REFUSED;
  };
}

/** The refused IPv4 and IPv6 addresses the issue names, and other ranges of the same kinds. */
const REFUSED_ADDRESSES = [
  "10.0.0.1",
  "172.16.0.1",
  "192.168.1.1",
  "100.64.0.1", // carrier-grade NAT
  "169.254.169.254", // cloud metadata (link-local)
  "127.0.0.1",
  "0.0.0.0",
  "224.0.0.1", // multicast
  "240.0.0.1", // reserved
  "255.255.255.255",
  "::1",
  "::ffff:127.0.0.1", // IPv4-mapped
  "::ffff:169.254.169.254",
  "fc00::1", // unique local
  "fe80::1", // link-local
  "ff02::1", // multicast
  "::",
  "64:ff9b::7f00:1", // NAT64 of 127.0.0.1
  "2002:7f00:1::", // 6to4 of 127.0.0.1
];

/** URL hosts that are, or parse to, refused addresses: decimal, octal and hex forms of 127.0.0.1 among them. */
const REFUSED_URLS = [
  "https://10.0.0.1/callbacks",
  "https://172.16.0.1/callbacks",
  "https://192.168.1.1/callbacks",
  "https://100.64.0.1/callbacks",
  "https://169.254.169.254/latest/meta-data/",
  "https://[::1]/callbacks",
  "https://[::ffff:127.0.0.1]/callbacks",
  "https://[fc00::1]/callbacks",
  "https://2130706433/callbacks",
  "https://0177.0.0.1/callbacks",
  "https://0x7f000001/callbacks",
  "https://0x7f.1/callbacks",
  "https://127.1:8443/callbacks",
];

const PUBLIC_ADDRESS = "93.184.216.34";

/** A resolver stub: the name resolves to `addresses` (no DNS is asked). */
function stubResolver(addresses: string[]): LookupFunction & { calls: string[] } {
  const calls: string[] = [];
  const lookup = ((hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    calls.push(hostname);
    const entries: LookupAddress[] = addresses.map((address) => ({ address, family: net.isIP(address) }));
    process.nextTick(() => (options.all ? callback(null, entries) : callback(null, entries[0].address, entries[0].family)));
  }) as unknown as LookupFunction & { calls: string[] };
  lookup.calls = calls;
  return lookup;
}

beforeEach(() => {
  connects.length = 0;
  TCP.prototype.connect = guard(originalConnect);
  TCP.prototype.connect6 = guard(originalConnect6);
});

afterEach(() => {
  TCP.prototype.connect = originalConnect;
  TCP.prototype.connect6 = originalConnect6;
  vi.restoreAllMocks();
});

describe("the address check (an IP-literal host, before a socket is created)", () => {
  it.each(REFUSED_ADDRESSES)("refuses %s", async (address) => {
    const agent = createPublicAgent();
    const socketCreated = vi.spyOn(https.Agent.prototype, "createConnection");
    const socketConnect = vi.spyOn(net.Socket.prototype, "connect");
    const error = await new Promise<Error | null>((resolve) => {
      (agent as any).createConnection({ host: address, port: 443 }, (failure: Error | null) => resolve(failure));
    });
    expect(error?.message).toMatch(/is not allowed/);
    expect(socketCreated).not.toHaveBeenCalled();
    expect(socketConnect).not.toHaveBeenCalled();
    expect(connects).toEqual([]);
    agent.destroy();
  });

  it(`lets a public address such as ${PUBLIC_ADDRESS} through to socket creation (stopped there: nothing connects)`, () => {
    const agent = createPublicAgent();
    const socketCreated = vi.spyOn(https.Agent.prototype, "createConnection").mockImplementation(() => new net.Socket());
    (agent as any).createConnection({ host: PUBLIC_ADDRESS, port: 443 }, () => undefined);
    expect(socketCreated).toHaveBeenCalledTimes(1);
    expect(socketCreated.mock.calls[0][0]).toMatchObject({ host: PUBLIC_ADDRESS, port: 443 });
    expect(connects).toEqual([]);
    agent.destroy();
  });
});

describe("every special-purpose range, refused before connecting (an IP-literal host, and a name resolving to it)", () => {
  /** What the agent does with an IP-literal host: the error it reports, and whether it went on to create a socket. */
  async function literal(address: string): Promise<{ error: Error | null; created: boolean }> {
    const agent = createPublicAgent();
    const socketCreated = vi.spyOn(https.Agent.prototype, "createConnection").mockImplementation(() => new net.Socket());
    const error = await new Promise<Error | null>((resolve) => {
      (agent as any).createConnection({ host: address, port: 443 }, (failure: Error | null) => resolve(failure));
      // A created socket is the mock's: nothing connects, and no error comes.
      if (socketCreated.mock.calls.length > 0) resolve(null);
    });
    agent.destroy();
    const created = socketCreated.mock.calls.length > 0;
    socketCreated.mockRestore();
    return { error, created };
  }

  describe.each(SPECIAL_RANGES)("$range", ({ inside, outside }) => {
    it.each(inside)("refuses %s", async (address) => {
      expect(await literal(address)).toMatchObject({ error: { message: expect.stringMatching(/is not allowed/) }, created: false });
      const http = new CallbackHttp({ timeoutMs: 2_000, allowHosts: [], lookup: stubResolver([address]) });
      const answer = await http.post("https://callbacks.integrator.test/hook", "{}", {});
      expect(answer).toMatchObject({ statusCode: null, error: expect.stringMatching(/is not allowed/) });
      http.close();
      expect(connects).toEqual([]);
    });
    if (outside.length > 0) {
      it.each(outside)("lets %s, just outside, through to socket creation (stopped there: nothing connects)", async (address) => {
        expect(await literal(address)).toEqual({ error: null, created: true });
        expect(connects).toEqual([]);
      });
    }
  });
});

describe("the resolver hook (a name, checked on every address it resolves to, inside the socket's lookup)", () => {
  /** The lookup the agent gives the socket it creates for `host`, over the resolver `resolve`. */
  function agentLookup(resolve: LookupFunction): LookupFunction {
    const agent = createPublicAgent();
    const socketCreated = vi.spyOn(https.Agent.prototype, "createConnection").mockImplementation(() => new net.Socket());
    (agent as any).createConnection({ host: "callbacks.integrator.test", port: 443, lookup: resolve }, () => undefined);
    agent.destroy();
    return (socketCreated.mock.calls[0][0] as { lookup: LookupFunction }).lookup;
  }

  function lookupWith(lookup: LookupFunction, all: boolean): Promise<{ error: Error | null; addresses: unknown }> {
    return new Promise((resolve) => {
      (lookup as any)("callbacks.integrator.test", { all }, (error: Error | null, addresses: unknown) => resolve({ error, addresses }));
    });
  }

  it.each(REFUSED_ADDRESSES)("refuses a name that resolves to %s", async (address) => {
    const resolver = stubResolver([address]);
    const lookup = agentLookup(resolver);
    for (const all of [true, false]) {
      const { error } = await lookupWith(lookup, all);
      expect(error?.message).toMatch(/is not allowed/);
    }
    expect(resolver.calls).toEqual(["callbacks.integrator.test", "callbacks.integrator.test"]);
    expect(connects).toEqual([]);
  });

  it("refuses a name when any one of its addresses is refused", async () => {
    const { error } = await lookupWith(agentLookup(stubResolver([PUBLIC_ADDRESS, "10.0.0.1"])), true);
    expect(error?.message).toMatch(/10\.0\.0\.1.*is not allowed/);
  });

  it(`passes a name that resolves to ${PUBLIC_ADDRESS} (the check only; nothing connects)`, async () => {
    const lookup = agentLookup(stubResolver([PUBLIC_ADDRESS]));
    expect(await lookupWith(lookup, true)).toEqual({ error: null, addresses: [{ address: PUBLIC_ADDRESS, family: 4 }] });
    expect(await lookupWith(lookup, false)).toEqual({ error: null, addresses: PUBLIC_ADDRESS });
    expect(connects).toEqual([]);
  });

  it("checks again on every lookup, so a name rebound to a private address is refused", async () => {
    let answer = PUBLIC_ADDRESS;
    const rebinding = ((_hostname: string, _options: { all?: boolean }, callback: (...args: unknown[]) => void) =>
      process.nextTick(() => callback(null, [{ address: answer, family: 4 }]))) as unknown as LookupFunction;
    const lookup = agentLookup(rebinding);
    expect((await lookupWith(lookup, true)).error).toBeNull();
    answer = "169.254.169.254";
    expect((await lookupWith(lookup, true)).error?.message).toMatch(/169\.254\.169\.254.*is not allowed/);
  });
});

describe("CallbackHttp.post", () => {
  let receiver: HttpsReceiver;

  beforeAll(async () => {
    receiver = await startHttpsReceiver();
  });

  afterAll(async () => {
    await receiver?.close();
  });

  const post = (http: CallbackHttp, url: string) => http.post(url, '{"ok":true}', { "webhook-id": "msg_test" });

  it.each(REFUSED_URLS)("refuses %s before any socket connects", async (url) => {
    const http = new CallbackHttp({ timeoutMs: 2_000, allowHosts: ["localhost"] });
    const socketConnect = vi.spyOn(net.Socket.prototype, "connect");
    const answer = await post(http, url);
    expect(answer).toMatchObject({ statusCode: null, error: expect.stringMatching(/is not allowed/) });
    expect(socketConnect).not.toHaveBeenCalled();
    expect(connects).toEqual([]);
    http.close();
  });

  it.each(REFUSED_ADDRESSES)("refuses a made-up name that resolves to %s: looked up, never connected", async (address) => {
    const resolver = stubResolver([address]);
    const http = new CallbackHttp({ timeoutMs: 2_000, allowHosts: [], lookup: resolver });
    const answer = await post(http, "https://callbacks.integrator.test/hook");
    expect(answer).toMatchObject({ statusCode: null, error: expect.stringMatching(/is not allowed/) });
    expect(resolver.calls).toEqual(["callbacks.integrator.test"]);
    expect(connects).toEqual([]);
    http.close();
  });

  it("refuses localhost unless it is allowed (it resolves to loopback)", async () => {
    const http = new CallbackHttp({ timeoutMs: 2_000, allowHosts: [] });
    expect((await post(http, receiver.url("/refused"))).error).toMatch(/is not allowed/);
    expect(connects).toEqual([]);
    expect(receiver.requests("/refused")).toEqual([]);
    http.close();
  });

  it("refuses a URL that is not https, or not a URL, without a socket", async () => {
    const http = new CallbackHttp({ timeoutMs: 2_000, allowHosts: ["localhost"] });
    const socketConnect = vi.spyOn(net.Socket.prototype, "connect");
    const tlsConnect = vi.spyOn(tls, "connect");
    expect(await post(http, receiver.url("/plain").replace("https:", "http:"))).toMatchObject({ statusCode: null, error: "callbackUrl must use https" });
    expect(await post(http, "ftp://localhost/x")).toMatchObject({ statusCode: null, error: "callbackUrl must use https" });
    expect(await post(http, "not a url")).toMatchObject({ statusCode: null, error: "callbackUrl is not a URL" });
    expect(socketConnect).not.toHaveBeenCalled();
    expect(tlsConnect).not.toHaveBeenCalled();
    expect(connects).toEqual([]);
    expect(receiver.requests("/plain")).toEqual([]);
    http.close();
  });

  it("reaches an allowed host on loopback (the guard sees that connect: its empty record elsewhere means something)", async () => {
    const http = new CallbackHttp({ timeoutMs: 2_000, allowHosts: ["localhost"] });
    receiver.script("/allowed", [{ status: 202 }]);
    expect(await post(http, receiver.url("/allowed"))).toMatchObject({ statusCode: 202, error: null });
    expect(connects.some((connect) => connect.endsWith(`:${receiver.port}`))).toBe(true);
    expect(receiver.requests("/allowed")[0]).toMatchObject({
      method: "POST",
      body: '{"ok":true}',
      headers: { "webhook-id": "msg_test", "content-type": "application/json" },
    });
    http.close();
  });

  it("does not follow a redirect and reports Retry-After", async () => {
    const http = new CallbackHttp({ timeoutMs: 2_000, allowHosts: ["localhost"] });
    receiver.script("/moved", [
      { status: 307, headers: { location: receiver.url("/target") } },
      { status: 503, headers: { "retry-after": "7" } },
    ]);
    expect(await post(http, receiver.url("/moved"))).toMatchObject({ statusCode: 307, error: null });
    expect(await post(http, receiver.url("/moved"))).toMatchObject({ statusCode: 503, retryAfter: "7" });
    expect(receiver.requests("/target")).toEqual([]);
    http.close();
  });

  it("reads at most 64 KiB of an answer, then closes the connection: a 200 followed by 256 MiB is delivered and the receiver's body cut short", async () => {
    const http = new CallbackHttp({ timeoutMs: 60_000, allowHosts: ["localhost"] });
    receiver.script("/endless", [{ status: 200, streamBytes: 256 * 1024 * 1024 }]);
    const answer = await post(http, receiver.url("/endless"));
    expect(answer).toMatchObject({ statusCode: 200, error: null, answerRead: { bytes: 64 * 1024, cut: true } });
    const [request] = receiver.requests("/endless");
    await request.streamed!.done;
    expect(request.streamed!.closedByClient).toBe(true);
    // What the connection's buffers took before the close, far from the whole body.
    expect(request.streamed!.bytesWritten).toBeLessThan(32 * 1024 * 1024);
    http.close();
  });

  it("reads an answer of up to 64 KiB to its end and keeps the connection for the next callback", async () => {
    const http = new CallbackHttp({ timeoutMs: 2_000, allowHosts: ["localhost"], maxSockets: 1 });
    receiver.script("/small", [{ status: 200, streamBytes: 64 * 1024 }, { status: 204 }]);
    expect(await post(http, receiver.url("/small"))).toMatchObject({ statusCode: 200, answerRead: { bytes: 64 * 1024, cut: false } });
    const [first] = receiver.requests("/small");
    await first.streamed!.done;
    expect(first.streamed).toMatchObject({ bytesWritten: 64 * 1024, closedByClient: false });
    expect(await post(http, receiver.url("/small"))).toMatchObject({ statusCode: 204, answerRead: { bytes: 0, cut: false } });
    const [, second] = receiver.requests("/small");
    expect(second.headers).toBeDefined();
    http.close();
  });

  it("keeps the status of an answer whose body does not come within the timeout, and closes the connection", async () => {
    const http = new CallbackHttp({ timeoutMs: 300, allowHosts: ["localhost"] });
    receiver.script("/dribble", [{ status: 200, bodyHangs: true }]);
    expect(await post(http, receiver.url("/dribble"))).toMatchObject({ statusCode: 200, error: null, answerRead: { bytes: 0, cut: true } });
    http.close();
  });

  it("gives up on a receiver that does not answer within the timeout", async () => {
    const http = new CallbackHttp({ timeoutMs: 300, allowHosts: ["localhost"] });
    receiver.script("/hang", [{ hang: true }]);
    const answer = await post(http, receiver.url("/hang"));
    expect(answer).toMatchObject({ statusCode: null, error: "no answer within 300 ms" });
    expect(answer.durationMs).toBeGreaterThanOrEqual(290);
    expect(answer.durationMs).toBeLessThan(2_000);
    http.close();
  });
});

describe("CallbackHttp.post, waiting for one of the receiver's connections", () => {
  let receiver: HttpsReceiver;

  beforeAll(async () => {
    receiver = await startHttpsReceiver();
  });

  afterAll(async () => {
    await receiver?.close();
  });

  const post = (http: CallbackHttp, path: string, startBy?: number) => http.post(receiver.url(path), '{"ok":true}', { "webhook-id": "msg_test" }, startBy);

  it("does not count the wait for a connection against the timeout: six 200 ms answers in turn on one connection, each within 800 ms", async () => {
    // Margins of 600 ms for an answer and 400 ms for the wait, so that a loaded machine cannot turn either way.
    const http = new CallbackHttp({ timeoutMs: 800, allowHosts: ["localhost"], maxSockets: 1 });
    receiver.script("/queued", [], { status: 204, delayMs: 200 });
    const answers = await Promise.all(Array.from({ length: 6 }, () => post(http, "/queued")));
    // The sixth waited about 1,000 ms for the connection: more than its timeout, which it did not spend.
    expect(answers.map((answer) => answer.statusCode)).toEqual(Array(6).fill(204));
    expect(Math.max(...answers.map((answer) => answer.durationMs))).toBeGreaterThanOrEqual(1_200);
    expect(receiver.requests("/queued")).toHaveLength(6);
    http.close();
  });

  it("still times out a receiver that holds the connection: the first hangs, the queued one is then sent and answered", async () => {
    const http = new CallbackHttp({ timeoutMs: 300, allowHosts: ["localhost"], maxSockets: 1 });
    receiver.script("/held", [{ hang: true }], { status: 204 });
    const [hung, queued] = await Promise.all([post(http, "/held"), post(http, "/held")]);
    expect(hung).toMatchObject({ statusCode: null, error: "no answer within 300 ms" });
    expect(queued).toMatchObject({ statusCode: 204, error: null });
    http.close();
  });

  it("gives up unsent a callback that has no connection by its start-by time (its lease's end less the timeout), and the receiver never sees it", async () => {
    const http = new CallbackHttp({ timeoutMs: 2_000, allowHosts: ["localhost"], maxSockets: 1 });
    receiver.script("/lease", [{ status: 204, delayMs: 600 }], { status: 204 });
    const [first, late] = await Promise.all([post(http, "/lease"), post(http, "/lease", Date.now() + 200)]);
    expect(first).toMatchObject({ statusCode: 204 });
    expect(late).toMatchObject({ statusCode: null, error: expect.stringMatching(/^not sent: no connection to the receiver came free before the lease's end/) });
    expect(late.durationMs).toBeLessThan(550);
    // The connection the dropped request would have had serves the next one.
    expect(await post(http, "/lease")).toMatchObject({ statusCode: 204 });
    expect(receiver.requests("/lease")).toHaveLength(2);
    http.close();
  });
});

describe("CallbackHttp.post, names resolved with its NameResolver", () => {
  let receiver: HttpsReceiver;
  let dns: TestDnsServer;

  beforeAll(async () => {
    [receiver, dns] = await Promise.all([
      startHttpsReceiver(),
      startTestDnsServer({ "answers.receivers.test": { a: ["127.0.0.1"] }, "hangs.receivers.test": SILENT }),
    ]);
  });

  afterAll(async () => {
    await Promise.all([receiver?.close(), dns?.close()]);
  });

  const allowed = ["answers.receivers.test", "hangs.receivers.test"];

  it("fails every attempt at a name whose lookups hang at the lookup's deadline, more attempts than the agent has sockets too, and nothing connects", async () => {
    const http = new CallbackHttp({ timeoutMs: 600, allowHosts: allowed, dns: { servers: [dns.address], timeoutMs: 300 } });
    const answers = await Promise.all(Array.from({ length: 150 }, () => http.post(`https://hangs.receivers.test:${receiver.port}/hook`, "{}", {})));
    expect(new Set(answers.map((answer) => answer.error))).toEqual(new Set(["name lookup for hangs.receivers.test took longer than 300 ms"]));
    expect(connects).toEqual([]);
    http.close();
  });

  it("reaches an allowed name its DNS servers resolve, and refuses it (looked up, never connected) when it is not allowed", async () => {
    receiver.script("/named", [], { status: 202 });
    const http = new CallbackHttp({ timeoutMs: 2_000, allowHosts: allowed, dns: { servers: [dns.address], timeoutMs: 1_000 } });
    expect(await http.post(`https://answers.receivers.test:${receiver.port}/named`, "{}", {})).toMatchObject({ statusCode: 202, error: null });
    http.close();
    connects.length = 0;
    const refusing = new CallbackHttp({ timeoutMs: 2_000, allowHosts: [], dns: { servers: [dns.address], timeoutMs: 1_000 } });
    expect((await refusing.post(`https://answers.receivers.test:${receiver.port}/named`, "{}", {})).error).toMatch(/127\.0\.0\.1.*is not allowed/);
    expect(connects).toEqual([]);
    expect(receiver.requests("/named")).toHaveLength(1);
    refusing.close();
  });
});
