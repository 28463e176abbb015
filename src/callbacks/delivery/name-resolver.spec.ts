import type { LookupAddress } from "node:dns";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { SILENT, startTestDnsServer, type TestDnsServer } from "../../../test/support/test-dns-server";
import { parseHosts } from "./hosts-file";
import { NameResolver } from "./name-resolver";

let dns: TestDnsServer;
const resolvers: NameResolver[] = [];

beforeAll(async () => {
  dns = await startTestDnsServer({
    "both.resolver.test": { a: ["127.0.0.1", "127.0.0.2"], aaaa: ["::1"] },
    "v4only.resolver.test": { a: ["127.0.0.3"] },
    "cached.resolver.test": { a: ["127.0.0.4"], ttl: 60 },
    "ttl-zero.resolver.test": { a: ["127.0.0.5"], ttl: 0 },
    "shared.resolver.test": { a: ["127.0.0.6"], ttl: 0 },
    "hangs.resolver.test": SILENT,
    "aaaa-hangs.resolver.test": { a: ["127.0.0.7"], aaaa: "silent" },
  });
});

afterAll(async () => {
  for (const resolver of resolvers) resolver.close();
  await dns?.close();
});

function resolverWith(timeoutMs = 1_000, hosts = parseHosts("")): NameResolver {
  const resolver = new NameResolver({ servers: [dns.address], timeoutMs, hosts });
  resolvers.push(resolver);
  return resolver;
}

function lookup(resolver: NameResolver, name: string, options: { all?: boolean; family?: number }): Promise<{ error: Error | null; result: unknown[] }> {
  return new Promise((resolve) => {
    resolver.lookup(name, options, (error, ...result) => resolve({ error, result: error ? [] : result }));
  });
}

/** What a promise has come to so far: its value, its error's message, or "pending". */
async function stateOf<T>(promise: Promise<T>): Promise<T | string> {
  return Promise.race([promise.catch((error: Error) => error.message), new Promise<string>((resolve) => setImmediate(() => resolve("pending")))]);
}

describe("NameResolver", () => {
  it("asks its DNS servers for A and AAAA, IPv4 first, and answers a socket's lookup with all of them or the first", async () => {
    const resolver = resolverWith();
    const both: LookupAddress[] = [
      { address: "127.0.0.1", family: 4 },
      { address: "127.0.0.2", family: 4 },
      { address: "::1", family: 6 },
    ];
    expect(await resolver.resolve("Both.Resolver.Test.")).toEqual(both);
    expect(await lookup(resolver, "both.resolver.test", { all: true })).toEqual({ error: null, result: [both] });
    expect(await lookup(resolver, "both.resolver.test", {})).toEqual({ error: null, result: ["127.0.0.1", 4] });
    expect(await lookup(resolver, "both.resolver.test", { family: 6 })).toEqual({ error: null, result: ["::1", 6] });
    expect(await resolver.resolve("v4only.resolver.test")).toEqual([{ address: "127.0.0.3", family: 4 }]);
    expect((await lookup(resolver, "v4only.resolver.test", { family: 6 })).error?.message).toBe("v4only.resolver.test has no IPv6 address");
  });

  it("answers names of the hosts file and localhost names without asking DNS", async () => {
    const resolver = resolverWith(1_000, parseHosts("10.1.2.3 receiver.internal # a comment\n"));
    const before = dns.queries().length;
    expect(await resolver.resolve("receiver.internal")).toEqual([{ address: "10.1.2.3", family: 4 }]);
    expect(await resolver.resolve("localhost")).toEqual([
      { address: "127.0.0.1", family: 4 },
      { address: "::1", family: 6 },
    ]);
    expect(await resolver.resolve("hooks.localhost")).toHaveLength(2);
    expect(dns.queries().length).toBe(before);
  });

  it("fails a name DNS does not know, with the name in the message", async () => {
    await expect(resolverWith().resolve("unknown.resolver.test")).rejects.toMatchObject({
      code: "ENOTFOUND",
      message: "name lookup for unknown.resolver.test: no such name or no address (ENOTFOUND)",
    });
  });

  it("gives up on a name whose server never answers after its deadline, while other names resolve meanwhile", async () => {
    const resolver = resolverWith(2_000);
    const hanging = Array.from({ length: 200 }, () => resolver.resolve("hangs.resolver.test"));
    // Hundreds of lookups of a hanging name hold nothing another name needs: it resolves while they still wait.
    expect(await resolver.resolve("both.resolver.test")).toHaveLength(3);
    expect(await stateOf(hanging[0])).toBe("pending");
    const outcomes = await Promise.allSettled(hanging);
    expect(new Set(outcomes.map((outcome) => outcome.status === "rejected" && (outcome.reason as Error).message))).toEqual(
      new Set(["name lookup for hangs.resolver.test took longer than 2000 ms"]),
    );
    expect((outcomes[0] as PromiseRejectedResult).reason).toMatchObject({ code: "ETIMEOUT", hostname: "hangs.resolver.test" });
  });

  it("takes the A records when AAAA never comes back, at the deadline", async () => {
    expect(await resolverWith(300).resolve("aaaa-hangs.resolver.test")).toEqual([{ address: "127.0.0.7", family: 4 }]);
  });

  it("asks once for a name many connections wait for at the same time", async () => {
    const resolver = resolverWith();
    const results = await Promise.all(Array.from({ length: 50 }, () => resolver.resolve("shared.resolver.test")));
    expect(new Set(results.map((result) => JSON.stringify(result))).size).toBe(1);
    // c-ares may repeat a query it had no answer to in time; one query of each type per lookup, not 50.
    expect(new Set(dns.queries("shared.resolver.test"))).toEqual(new Set(["A shared.resolver.test", "AAAA shared.resolver.test"]));
    expect(dns.queries("shared.resolver.test").length).toBeLessThan(10);
  });

  it("keeps an answer for its TTL (at least a second, so the socket's lookup right after finds it), then asks again", async () => {
    let now = 1_000_000;
    const resolver = new NameResolver({ servers: [dns.address], timeoutMs: 1_000, hosts: parseHosts(""), now: () => now });
    resolvers.push(resolver);
    await resolver.resolve("cached.resolver.test");
    now += 59_000;
    await resolver.resolve("cached.resolver.test");
    expect(dns.queries("cached.resolver.test")).toEqual(["A cached.resolver.test", "AAAA cached.resolver.test"]);
    now += 1_000;
    await resolver.resolve("cached.resolver.test");
    expect(dns.queries("cached.resolver.test")).toHaveLength(4);

    await resolver.resolve("ttl-zero.resolver.test");
    now += 999;
    await resolver.resolve("ttl-zero.resolver.test");
    expect(dns.queries("ttl-zero.resolver.test")).toHaveLength(2);
    now += 1;
    await resolver.resolve("ttl-zero.resolver.test");
    expect(dns.queries("ttl-zero.resolver.test")).toHaveLength(4);
  });
});
