/** The longest a failing endpoint is left alone, and the longest Retry-After honoured. */
const MAX_BACKOFF_MS = 15_000;
const MAX_RETRY_AFTER_MS = 60_000;
const FIRST_BACKOFF_MS = 1_000;

/** Why a request to one endpoint failed, as the metrics and readiness name it. */
export type RpcFailureReason = "unreachable" | "timeout" | "rate_limited" | "server_error";

/** One endpoint's health as readiness shows it: never its credentials. */
export interface RpcEndpointHealth {
  endpoint: number;
  url: string;
  /** Null until a request has gone to it. */
  up: boolean | null;
  lastError: string | null;
  /** When requests go to it again, while it is backed off. */
  backedOffUntil: string | null;
}

export interface RpcEndpointEvents {
  /** After every request that reached a verdict on an endpoint. */
  onResult?: (endpoint: number, up: boolean, reason: RpcFailureReason | null, message: string | null) => void;
}

/** An HTTP answer or a failure to get one that says the endpoint, not the request, is at fault: the request may go elsewhere. */
class EndpointFailure extends Error {
  constructor(
    readonly reason: RpcFailureReason,
    message: string,
    readonly retryAfterMs: number | null = null,
  ) {
    super(message);
    this.name = "EndpointFailure";
  }
}

interface Endpoint {
  index: number;
  /** Without userinfo: Node's fetch refuses it. */
  url: string;
  label: string;
  headers: Record<string, string>;
  up: boolean | null;
  lastError: string | null;
  failures: number;
  backedOffUntil: number;
}

/**
 * The chain's JSON-RPC endpoints in order of preference. A request goes to the first endpoint not
 * backed off and fails over to the next on a connection error, a timeout, HTTP 5xx or 429; the
 * endpoint that failed is left alone for a while (its Retry-After, up to a minute, or 1 s doubling
 * up to 15 s), after which it is preferred again. Credentials in a URL (`https://user:pass@host`)
 * become an `Authorization: Basic` header; `headers` go with every request.
 */
export class RpcEndpoints {
  private readonly endpoints: Endpoint[];

  constructor(
    urls: string[],
    headers: Record<string, string> = {},
    private readonly events: RpcEndpointEvents = {},
  ) {
    if (urls.length === 0) throw new Error("no JSON-RPC endpoint");
    this.endpoints = urls.map((raw, index) => {
      const { url, authorization } = withoutCredentials(raw);
      const own = authorization ? { ...headers, authorization } : { ...headers };
      return { index, url, label: redactedUrl(raw), headers: own, up: null, lastError: null, failures: 0, backedOffUntil: 0 };
    });
  }

  /** The preferred endpoint's URL without credentials (what ethers is told it talks to). */
  get primaryUrl(): string {
    return this.endpoints[0].url;
  }

  /** The preferred endpoint, redacted: for messages. */
  get primaryLabel(): string {
    return this.endpoints[0].label;
  }

  get size(): number {
    return this.endpoints.length;
  }

  health(): RpcEndpointHealth[] {
    const now = Date.now();
    return this.endpoints.map((endpoint) => ({
      endpoint: endpoint.index,
      url: endpoint.label,
      up: endpoint.up,
      lastError: endpoint.lastError,
      backedOffUntil: endpoint.backedOffUntil > now ? new Date(endpoint.backedOffUntil).toISOString() : null,
    }));
  }

  /** One JSON-RPC POST to the first endpoint that answers; rejects when none does (or one refuses the request itself). */
  async post<T>(payload: unknown, timeoutMs: number): Promise<T> {
    const now = Date.now();
    const available = this.endpoints.filter((endpoint) => endpoint.backedOffUntil <= now);
    if (available.length === 0) {
      const next = Math.min(...this.endpoints.map((endpoint) => endpoint.backedOffUntil)) - now;
      throw new Error(`every JSON-RPC endpoint is backed off for ${next} ms more (${this.summary()})`);
    }
    const body = JSON.stringify(payload);
    for (const endpoint of available) {
      try {
        const result = await this.postTo<T>(endpoint, body, timeoutMs);
        this.succeeded(endpoint);
        return result;
      } catch (error) {
        if (!(error instanceof EndpointFailure)) throw error;
        this.failed(endpoint, error);
      }
    }
    throw new Error(`no JSON-RPC endpoint answered (${this.summary()})`);
  }

  private async postTo<T>(endpoint: Endpoint, body: string, timeoutMs: number): Promise<T> {
    let response: Response;
    try {
      response = await fetch(endpoint.url, {
        method: "POST",
        headers: { ...endpoint.headers, "content-type": "application/json" },
        body,
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      const timedOut = (error as Error).name === "TimeoutError";
      const cause = (error as { cause?: { code?: string } }).cause?.code;
      throw new EndpointFailure(
        timedOut ? "timeout" : "unreachable",
        timedOut ? `no answer within ${timeoutMs} ms` : `unreachable (${cause ?? (error as Error).message})`,
      );
    }
    if (response.status === 429 || response.status >= 500) {
      await response.body?.cancel();
      const reason = response.status === 429 ? "rate_limited" : "server_error";
      throw new EndpointFailure(reason, `answered ${response.status} ${response.statusText}`, retryAfterMs(response.headers.get("retry-after")));
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw new Error(`the JSON-RPC server answered ${response.status} ${response.statusText}`);
    }
    try {
      return (await response.json()) as T;
    } catch (error) {
      throw new EndpointFailure("server_error", `answered with a body that is not JSON: ${(error as Error).message}`);
    }
  }

  private succeeded(endpoint: Endpoint): void {
    endpoint.up = true;
    endpoint.failures = 0;
    endpoint.lastError = null;
    endpoint.backedOffUntil = 0;
    this.events.onResult?.(endpoint.index, true, null, null);
  }

  private failed(endpoint: Endpoint, failure: EndpointFailure): void {
    endpoint.failures += 1;
    const backoff = failure.retryAfterMs ?? Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** (endpoint.failures - 1));
    endpoint.up = false;
    endpoint.lastError = failure.message;
    endpoint.backedOffUntil = Date.now() + backoff;
    this.events.onResult?.(endpoint.index, false, failure.reason, failure.message);
  }

  private summary(): string {
    return this.endpoints.map((endpoint) => `endpoint ${endpoint.index} ${endpoint.label}: ${endpoint.lastError ?? "not tried"}`).join("; ");
  }
}

/** Retry-After in seconds or as an HTTP date, capped; null when absent or unreadable. */
function retryAfterMs(header: string | null): number | null {
  if (header === null) return null;
  const seconds = /^\d+$/.test(header.trim()) ? Number(header.trim()) * 1_000 : Date.parse(header) - Date.now();
  if (!Number.isFinite(seconds)) return null;
  return Math.min(MAX_RETRY_AFTER_MS, Math.max(0, seconds));
}

/** The URL without its userinfo, and that userinfo as a Basic authorization header. */
export function withoutCredentials(raw: string): { url: string; authorization: string | null } {
  const parsed = new URL(raw);
  if (parsed.username === "" && parsed.password === "") return { url: raw, authorization: null };
  const credentials = `${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}`;
  parsed.username = "";
  parsed.password = "";
  return { url: parsed.toString(), authorization: `Basic ${Buffer.from(credentials).toString("base64")}` };
}

/**
 * A URL fit for logs and readiness: scheme, host and port. Credentials, path and query are left
 * out, since providers put API keys in any of them (`https://host/v3/<key>`).
 */
export function redactedUrl(raw: string): string {
  try {
    const parsed = new URL(raw);
    const hidden = parsed.username !== "" || parsed.password !== "" || (parsed.pathname !== "/" && parsed.pathname !== "") || parsed.search !== "";
    return `${parsed.protocol}//${parsed.host}${hidden ? "/[redacted]" : ""}`;
  } catch {
    return "[not a URL]";
  }
}
