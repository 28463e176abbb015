import type { LookupFunction } from "node:net";
import https from "node:https";
import { isIP } from "node:net";

import { PublicAddressAgent } from "./public-address-agent";

import { NameResolver, type NameResolverOptions } from "./name-resolver";

export interface DeliveryAnswer {
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  retryAfter: string | undefined;
}

export interface CallbackHttpOptions {
  timeoutMs: number;
  /** Host names allowed to resolve to private addresses (development and tests only). */
  allowHosts: readonly string[];
  /** Name resolution (NameResolver): its DNS servers and deadline; by default the system's servers and the attempt's timeout. */
  dns?: NameResolverOptions;
  /** In place of the NameResolver, behind the address check: tests put a stub here. */
  lookup?: LookupFunction;
}

/**
 * The agent for every host not in the allow-list: it checks an IP-literal host before creating a
 * socket, and every address a name resolves to inside the socket's own lookup (so before connecting,
 * on every new connection): only public unicast addresses pass (public-address.ts).
 */
export function createPublicAgent(): https.Agent {
  return new PublicAddressAgent({ keepAlive: true, maxSockets: 64, allowPrivateIPAddress: false, allowMetaIPAddress: false });
}

/**
 * POSTs a callback over HTTPS. Targets must resolve to public addresses, checked on the address the
 * socket actually connects to (so DNS rebinding gains nothing): private, loopback, link-local,
 * carrier-grade NAT, multicast, reserved and IPv4-mapped addresses are refused before connecting.
 * Names are resolved by a NameResolver (c-ares, off the thread pool, with its own deadline), so one
 * receiver's hanging name costs only its own attempts. Redirects are never followed.
 */
export class CallbackHttp {
  private readonly publicAgent: https.Agent;
  private readonly allowedAgent: https.Agent;
  private readonly resolver: NameResolver | undefined;
  /** Every new connection's name lookup, allowed hosts' too: never dns.lookup, whose thread pool one hanging name can fill. */
  private readonly lookup: LookupFunction;

  constructor(private readonly options: CallbackHttpOptions) {
    this.publicAgent = createPublicAgent();
    this.allowedAgent = new https.Agent({ keepAlive: true, maxSockets: 64 });
    if (options.lookup) {
      this.lookup = options.lookup;
    } else {
      this.resolver = new NameResolver(options.dns ?? { servers: [], timeoutMs: options.timeoutMs });
      this.lookup = this.resolver.lookup;
    }
  }

  async post(target: string, body: string, headers: Record<string, string>): Promise<DeliveryAnswer> {
    const started = performance.now();
    // The attempt's timeout counts from here: a name lookup is part of the attempt.
    const signal = AbortSignal.timeout(this.options.timeoutMs);
    const finish = (answer: Omit<DeliveryAnswer, "durationMs">): DeliveryAnswer => ({ ...answer, durationMs: Math.round(performance.now() - started) });
    let url: URL;
    try {
      url = new URL(target);
    } catch {
      return finish({ statusCode: null, error: "callbackUrl is not a URL", retryAfter: undefined });
    }
    if (url.protocol !== "https:") return finish({ statusCode: null, error: "callbackUrl must use https", retryAfter: undefined });
    const lookupFailure = await this.resolveFirst(url);
    if (lookupFailure !== null) return finish({ statusCode: null, error: lookupFailure, retryAfter: undefined });
    return new Promise((resolve) => {
      const request = https.request(
        url,
        {
          method: "POST",
          agent: this.agentFor(url),
          lookup: this.lookup,
          headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body), "user-agent": "ticket-registry-callbacks/1", ...headers },
          signal,
        },
        (response) => {
          response.resume();
          resolve(finish({ statusCode: response.statusCode ?? null, error: null, retryAfter: firstValue(response.headers["retry-after"]) }));
        },
      );
      request.on("error", (error) => resolve(finish({ statusCode: null, error: describe(error, this.options.timeoutMs), retryAfter: undefined })));
      request.end(body);
    });
  }

  /**
   * Resolves the target's name before the request: every attempt waiting for a name that hangs then
   * fails at the lookup's deadline, with that reason, rather than queueing for one of the agent's 64
   * sockets per host until its own timeout. The socket's lookup finds the answer kept (at least
   * MIN_TTL_SECONDS) and checks its addresses as ever. Null when the name resolved (or is an address).
   */
  private async resolveFirst(url: URL): Promise<string | null> {
    if (!this.resolver || isIP(url.hostname.replace(/^\[(.*)\]$/, "$1")) !== 0) return null;
    try {
      await this.resolver.resolve(url.hostname);
      return null;
    } catch (error) {
      return (error as Error).message;
    }
  }

  close(): void {
    this.publicAgent.destroy();
    this.allowedAgent.destroy();
    this.resolver?.close();
  }

  private agentFor(url: URL): https.Agent {
    return this.options.allowHosts.includes(url.hostname.toLowerCase()) ? this.allowedAgent : this.publicAgent;
  }
}

/** A header's first value, should it come as a list. */
function firstValue(header: string | string[] | undefined): string | undefined {
  return Array.isArray(header) ? header[0] : header;
}

function describe(error: Error, timeoutMs: number): string {
  if (error.name === "AbortError" || error.name === "TimeoutError") return `no answer within ${timeoutMs} ms`;
  return error.message;
}
