import type { IncomingMessage } from "node:http";
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
  /** How much of the answer's body was read (at most MAX_ANSWER_BYTES), and whether the rest was cut off; absent when no answer came. */
  answerRead?: AnswerRead;
}

export interface AnswerRead {
  bytes: number;
  /** The connection was closed before the body's end: it was longer than MAX_ANSWER_BYTES, or did not end within the timeout. */
  cut: boolean;
}

/**
 * The most of a receiver's answer body an attempt reads. Nothing of it decides the outcome (the status
 * does), so a longer body is not read on: the connection is closed, and a receiver that answers 200 and
 * then streams gigabytes costs the worker 64 KiB. A body within it is read to its end, which keeps the
 * connection for the receiver's next callback.
 */
export const MAX_ANSWER_BYTES = 64 * 1024;

export interface CallbackHttpOptions {
  timeoutMs: number;
  /** Host names allowed to resolve to private addresses (development and tests only). */
  allowHosts: readonly string[];
  /** Name resolution (NameResolver): its DNS servers and deadline; by default the system's servers and the attempt's timeout. */
  dns?: NameResolverOptions;
  /** In place of the NameResolver, behind the address check: tests put a stub here. */
  lookup?: LookupFunction;
  /** Connections per receiver (per agent and host); 64 by default. */
  maxSockets?: number;
}

/** Connections kept per receiver: more callbacks to one receiver wait for one of these. */
const MAX_SOCKETS = 64;

/**
 * The agent for every host not in the allow-list: it checks an IP-literal host before creating a
 * socket, and every address a name resolves to inside the socket's own lookup (so before connecting,
 * on every new connection): only public unicast addresses pass (public-address.ts).
 */
export function createPublicAgent(maxSockets = MAX_SOCKETS): https.Agent {
  return new PublicAddressAgent({ keepAlive: true, maxSockets, allowPrivateIPAddress: false, allowMetaIPAddress: false });
}

/**
 * POSTs a callback over HTTPS. Targets must resolve to public addresses, checked on the address the
 * socket actually connects to (so DNS rebinding gains nothing): private, loopback, link-local,
 * carrier-grade NAT, multicast, reserved and IPv4-mapped addresses are refused before connecting.
 * Names are resolved by a NameResolver (c-ares, off the thread pool, with its own deadline), so one
 * receiver's hanging name costs only its own attempts. Redirects are never followed, and at most
 * MAX_ANSWER_BYTES of an answer's body are read.
 */
export class CallbackHttp {
  private readonly publicAgent: https.Agent;
  private readonly allowedAgent: https.Agent;
  private readonly resolver: NameResolver | undefined;
  /** Every new connection's name lookup, allowed hosts' too: never dns.lookup, whose thread pool one hanging name can fill. */
  private readonly lookup: LookupFunction;

  constructor(private readonly options: CallbackHttpOptions) {
    this.publicAgent = createPublicAgent(options.maxSockets);
    this.allowedAgent = new https.Agent({ keepAlive: true, maxSockets: options.maxSockets ?? MAX_SOCKETS });
    if (options.lookup) {
      this.lookup = options.lookup;
    } else {
      this.resolver = new NameResolver(options.dns ?? { servers: [], timeoutMs: options.timeoutMs });
      this.lookup = this.resolver.lookup;
    }
  }

  /**
   * The attempt's time (CALLBACK_TIMEOUT_MS) is the name lookup's and then the receiver's, from
   * the moment the request has a connection (a new one's connect and TLS handshake included) to
   * the answer's end. While the request waits for one of the agent's connections to its receiver
   * (others' callbacks to that receiver hold them all), no time counts: the wait says nothing about
   * this callback, and counting it would time out callbacks that were never sent. The wait lasts
   * at most until `startBy` (ms since the epoch): a callback still without a connection then is
   * given up unsent, so that its attempt, once started, ends within its lease.
   */
  async post(target: string, body: string, headers: Record<string, string>, startBy = Number.POSITIVE_INFINITY): Promise<DeliveryAnswer> {
    const started = performance.now();
    const timeoutMs = this.options.timeoutMs;
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
    const lookupMs = performance.now() - started;
    return new Promise((resolve) => {
      let answered = false;
      let timer: NodeJS.Timeout | undefined;
      /** Once the status has come: ends the attempt with it and what was read of the body. */
      let endWithStatus: ((cut: boolean) => void) | undefined;
      const answer = (result: Omit<DeliveryAnswer, "durationMs">) => {
        if (answered) return;
        answered = true;
        clearTimeout(timer);
        resolve(finish(result));
      };
      const giveUp = (error: string) => {
        // A receiver that sent its status in time keeps it; a request still waiting for a connection
        // is dropped from the agent's queue unsent.
        if (endWithStatus) endWithStatus(true);
        else answer({ statusCode: null, error, retryAfter: undefined });
        request.destroy();
      };
      const request = https.request(
        url,
        {
          method: "POST",
          agent: this.agentFor(url),
          lookup: this.lookup,
          headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body), "user-agent": "ticket-registry-callbacks/1", ...headers },
        },
        (response) => {
          // The timer keeps running until the answer's body has ended: a receiver that sends its
          // status and then dribbles a body still loses its connection at the timeout.
          endWithStatus = readAnswer(response, (read) => {
            answer({ statusCode: response.statusCode ?? null, error: null, retryAfter: firstValue(response.headers["retry-after"]), answerRead: read });
            if (read.cut) request.destroy();
          });
        },
      );
      if (Number.isFinite(startBy)) {
        timer = setTimeout(
          () => giveUp("not sent: no connection to the receiver came free before the lease's end (its other callbacks held them all)"),
          Math.max(0, startBy - Date.now()),
        );
      }
      request.once("socket", () => {
        clearTimeout(timer);
        timer = setTimeout(() => giveUp(`no answer within ${timeoutMs} ms`), Math.max(0, timeoutMs - lookupMs));
      });
      request.on("error", (error) => {
        if (endWithStatus) endWithStatus(true);
        else answer({ statusCode: null, error: error.message, retryAfter: undefined });
      });
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

/**
 * Reads the answer's body up to MAX_ANSWER_BYTES, counting it (nothing of it is kept), and calls `done`
 * once: at the body's end, at the first byte past the limit, or when the connection closes first. The
 * function returned ends it from outside (the timeout), as cut.
 */
function readAnswer(response: IncomingMessage, done: (read: AnswerRead) => void): (cut: boolean) => void {
  let bytes = 0;
  let ended = false;
  const end = (cut: boolean) => {
    if (ended) return;
    ended = true;
    done({ bytes: Math.min(bytes, MAX_ANSWER_BYTES), cut });
  };
  response.on("data", (chunk: Buffer) => {
    bytes += chunk.length;
    if (bytes > MAX_ANSWER_BYTES) end(true);
  });
  response.once("end", () => end(false));
  response.once("close", () => end(!response.complete));
  return end;
}

/** A header's first value, should it come as a list. */
function firstValue(header: string | string[] | undefined): string | undefined {
  return Array.isArray(header) ? header[0] : header;
}
