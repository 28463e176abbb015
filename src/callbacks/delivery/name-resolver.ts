import { type LookupAddress, promises as dns, type RecordWithTtl } from "node:dns";
import type { LookupFunction } from "node:net";

import { type HostsTable, readHostsFile } from "./hosts-file";

export interface NameResolverOptions {
  /** CALLBACK_DNS_SERVERS: `address` or `address:port` (`[v6]:port`) entries; empty for the system's (resolv.conf). */
  servers: readonly string[];
  /** CALLBACK_DNS_TIMEOUT_MS: the most one name's lookup (A and AAAA together) may take. */
  timeoutMs: number;
  /** Names answered without DNS; by default the system's hosts file. */
  hosts?: HostsTable;
  /** The clock answers expire by (tests move it). */
  now?: () => number;
}

/** Answers are kept for their TTL, but never longer than this, so a changed record is seen soon enough. */
const MAX_TTL_SECONDS = 300;
/**
 * Nor shorter than this: delivery resolves a name before its request and the socket's lookup then
 * needs the same answer (a TTL of 0 would ask twice). The address check runs on every lookup, kept
 * answers included.
 */
const MIN_TTL_SECONDS = 1;
/** The most names kept at once; beyond it the oldest answer goes. */
const MAX_CACHED_NAMES = 10_000;
/** RFC 6761: `localhost` and names under it are loopback, without asking DNS (as getaddrinfo has them from the hosts file). */
const LOOPBACK: readonly LookupAddress[] = [
  { address: "127.0.0.1", family: 4 },
  { address: "::1", family: 6 },
];
/** A and AAAA answers that mean "no such address", not "DNS failed". */
const NOT_FOUND = new Set(["ENOTFOUND", "ENODATA"]);

/** A failed lookup; `code` is c-ares's (ENOTFOUND, ESERVFAIL, …) or ETIMEOUT for the deadline. */
export class NameLookupError extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly hostname: string,
  ) {
    super(message);
    this.name = "NameLookupError";
  }
}

/**
 * Resolves callback hosts for delivery off Node's thread pool. dns.lookup (getaddrinfo) runs on
 * libuv's pool, four threads shared by the whole process: a name whose lookups hang fills it, and
 * every other receiver's lookups queue behind them until their attempts time out. c-ares
 * (dns.Resolver) sends its queries from the event loop, so a name that hangs costs only the attempts
 * that wait for it. Each name has one query in flight, shared by the attempts that wait for it, and
 * its own deadline; answers are kept for their TTL (from 1 s to 5 minutes). The hosts file and `localhost` names are answered
 * without DNS, as getaddrinfo answers them.
 *
 * Hand-written over dns.Resolver rather than cacheable-lookup: that package falls back to dns.lookup
 * (the thread pool this avoids) for names DNS does not know, has no deadline, and fails a whole
 * lookup when one of A and AAAA fails.
 */
export class NameResolver {
  private readonly resolver: dns.Resolver;
  private readonly hosts: HostsTable;
  private readonly cache = new Map<string, { addresses: LookupAddress[]; expiresAt: number }>();
  private readonly inFlight = new Map<string, Promise<LookupAddress[]>>();
  private readonly now: () => number;

  constructor(private readonly options: NameResolverOptions) {
    // Two tries per server within the deadline, so one lost datagram does not fail the lookup; the
    // deadline below is what the attempt sees, c-ares's own timeout only ends the query's work.
    const perTryMs = Math.max(1, Math.ceil(options.timeoutMs / 2));
    this.resolver = new dns.Resolver({ timeout: perTryMs, maxTimeout: perTryMs, tries: 2 });
    if (options.servers.length > 0) this.resolver.setServers([...options.servers]);
    this.hosts = options.hosts ?? readHostsFile();
    this.now = options.now ?? Date.now;
  }

  /** For a socket's `lookup` option (net.connect, https.request): `all` and `family` as dns.lookup takes them. */
  readonly lookup: LookupFunction = (hostname, options, callback) => {
    const family = options.family === "IPv4" ? 4 : options.family === "IPv6" ? 6 : (options.family ?? 0);
    this.resolve(hostname).then(
      (found) => {
        const addresses = family === 0 ? found : found.filter((entry) => entry.family === family);
        if (addresses.length === 0) callback(new NameLookupError(`${hostname} has no IPv${family} address`, "ENODATA", hostname), "", 0);
        else if (options.all) callback(null, addresses);
        else callback(null, addresses[0].address, addresses[0].family);
      },
      (error: Error) => callback(error, "", 0),
    );
  };

  /** The name's addresses, IPv4 first. Rejects with a NameLookupError. */
  resolve(hostname: string): Promise<LookupAddress[]> {
    const name = hostname.toLowerCase().replace(/\.$/, "");
    const local = this.hosts.get(name) ?? (name === "localhost" || name.endsWith(".localhost") ? LOOPBACK : undefined);
    if (local) return Promise.resolve([...local]);
    const cached = this.cache.get(name);
    if (cached && cached.expiresAt > this.now()) return Promise.resolve(cached.addresses);
    let query = this.inFlight.get(name);
    if (!query) {
      query = this.query(name).finally(() => this.inFlight.delete(name));
      this.inFlight.set(name, query);
    }
    return query;
  }

  /** Ends the queries in flight (they fail with ECANCELLED). */
  close(): void {
    this.resolver.cancel();
  }

  /** A and AAAA at once, both within the deadline; either's addresses suffice. */
  private async query(name: string): Promise<LookupAddress[]> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new NameLookupError(this.tookTooLong(name), "ETIMEOUT", name)), this.options.timeoutMs);
    });
    const [v4, v6] = await Promise.allSettled([
      Promise.race([this.resolver.resolve4(name, { ttl: true }), deadline]),
      Promise.race([this.resolver.resolve6(name, { ttl: true }), deadline]),
    ]).finally(() => clearTimeout(timer));
    const records: (RecordWithTtl & LookupAddress)[] = [
      ...(v4.status === "fulfilled" ? v4.value.map((record) => ({ ...record, family: 4 })) : []),
      ...(v6.status === "fulfilled" ? v6.value.map((record) => ({ ...record, family: 6 })) : []),
    ];
    if (records.length === 0)
      throw this.failure(
        name,
        [v4, v6].flatMap((result) => (result.status === "rejected" ? [result.reason as Error] : [])),
      );
    const addresses = records.map(({ address, family }) => ({ address, family }));
    this.remember(name, addresses, Math.min(...records.map((record) => record.ttl)));
    return addresses;
  }

  private remember(name: string, addresses: LookupAddress[], ttlSeconds: number): void {
    this.cache.delete(name);
    if (this.cache.size >= MAX_CACHED_NAMES) this.cache.delete(this.cache.keys().next().value as string);
    const keptSeconds = Math.min(Math.max(ttlSeconds, MIN_TTL_SECONDS), MAX_TTL_SECONDS);
    this.cache.set(name, { addresses, expiresAt: this.now() + keptSeconds * 1000 });
  }

  /** Why neither family gave an address: the deadline (ours or c-ares's) first, then "no such name", then DNS's own error. */
  private failure(name: string, errors: Error[]): NameLookupError {
    const codes = errors.length === 0 ? ["ENODATA"] : errors.map((error) => (error as NodeJS.ErrnoException).code ?? "EUNKNOWN");
    if (codes.includes("ETIMEOUT")) return new NameLookupError(this.tookTooLong(name), "ETIMEOUT", name);
    if (codes.every((code) => NOT_FOUND.has(code)))
      return new NameLookupError(`name lookup for ${name}: no such name or no address (${codes[0]})`, codes[0], name);
    const code = codes.find((candidate) => !NOT_FOUND.has(candidate)) as string;
    return new NameLookupError(`name lookup for ${name} failed (${code})`, code, name);
  }

  private tookTooLong(name: string): string {
    return `name lookup for ${name} took longer than ${this.options.timeoutMs} ms`;
  }
}
