import { readFileSync } from "node:fs";
import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from "node:http";
import { join } from "node:path";

import addFormats from "ajv-formats";
import { type Document, OpenAPIBackend, type Operation } from "openapi-backend";

/** The committed document: test/docs/openapi.e2e-spec.ts proves the app serves exactly this one at /docs-json. */
export const COMMITTED_OPENAPI_PATH = join(__dirname, "..", "..", "openapi.json");

/** One request and its answer, as the service saw and sent them. */
export interface Exchange {
  method: string;
  /** The request target: path and query string, as sent. */
  url: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON request body (express.json's req.body), undefined when none was read. */
  requestBody?: unknown;
  status: number;
  /** The Content-Type of the answer, if it had one. */
  contentType?: string;
  /** The bytes of the answer; undefined when not captured (an event stream). */
  responseBody?: Buffer;
}

interface AjvError {
  instancePath?: string;
  message?: string;
  params?: unknown;
}

/** JSON answers this large are not kept for validation (none of the suite's answers comes near). */
const MAX_CAPTURED_BYTES = 32 * 1024 * 1024;

/**
 * Checks exchanges against the committed OpenAPI document, with rules that suit a suite that
 * deliberately sends bad input:
 * - every answer of a documented operation must have a documented status (an undocumented one is a
 *   violation), a documented content type, and a JSON body that validates against that status's schema;
 * - a request the service answered 2xx must validate against the documented request: path and
 *   (documented) query parameters, headers (Idempotency-Key, Last-Event-ID) and the JSON body. Refused requests are bad
 *   input on purpose, so only their answers are checked; likewise the items of an array body that the
 *   200 answer refused one by one (an entry with status "error" at their position, as the per-ticket
 *   endpoints and /stream answer) are left out of the request check: the document says what to send,
 *   the answer says what was not taken.
 * Skipped: requests that match no operation of the document (the Swagger UI and /docs-json, /metrics,
 * /admin and the queue dashboard, unknown paths and methods: none of them is part of the documented
 * interface), and the bodies of answers that are not JSON (the text/html ticket page, the
 * text/event-stream of live action events), which are checked by status and content type only.
 */
export class OpenApiValidator {
  private static committedDocument: Promise<OpenApiValidator> | undefined;

  private constructor(private readonly api: OpenAPIBackend) {}

  /**
   * The committed document's validator, compiled once per process: compiling takes seconds, and a
   * validator keeps nothing between checks, so every app of every test file can share it.
   */
  static committed(): Promise<OpenApiValidator> {
    OpenApiValidator.committedDocument ??= OpenApiValidator.load().catch((error: unknown) => {
      OpenApiValidator.committedDocument = undefined;
      throw error;
    });
    return OpenApiValidator.committedDocument;
  }

  static async load(document: Document = JSON.parse(readFileSync(COMMITTED_OPENAPI_PATH, "utf8")) as Document): Promise<OpenApiValidator> {
    // strict: false lets ajv ignore what is OpenAPI and not JSON Schema (discriminator, example): the
    // stream items' oneOf then proves by itself that exactly one member matches each item.
    // ajv-formats: date-time, uuid, uri and the other formats the document names are checked too.
    const api = new OpenAPIBackend({
      definition: document,
      quick: false,
      validate: true,
      strict: false,
      ajvOpts: { strict: false },
      customizeAjv: (ajv) => {
        addFormats(ajv);
        return ajv;
      },
    });
    await api.init();
    return new OpenApiValidator(api);
  }

  /** The violations of one exchange, each naming method, path, status and what is wrong; empty when it conforms. */
  check(exchange: Exchange): string[] {
    const { pathname, search } = new URL(exchange.url, "http://service.invalid");
    // As sent, percent-encoded: openapi-backend decodes each path parameter itself. Decoded first, an id
    // holding "/" would match no operation, and one holding "%" would be decoded twice.
    const path = pathname;
    const method = exchange.method.toLowerCase();
    // openapi-backend matches `/health/live/` to `/health/live`; the service does not (keyless routes are
    // exact paths), so a trailing slash is an unknown path here too.
    if (pathname.length > 1 && pathname.endsWith("/")) return [];
    const operation = this.api.matchOperation({ method, path, headers: {} });
    if (!operation) return [];
    const where = `${exchange.method.toUpperCase()} ${exchange.url} -> ${exchange.status} (${operation.operationId})`;
    const violations: string[] = [];
    const status = String(exchange.status);
    const responses = operation.responses ?? {};
    const documented = (responses[status] ?? responses[`${status[0]}XX`] ?? responses.default) as { content?: Record<string, unknown> } | undefined;
    if (!documented) {
      violations.push(`${where}: status ${status} is not documented (documented: ${Object.keys(responses).join(", ")})`);
    } else {
      violations.push(...this.checkResponseBody(where, operation, exchange, documented.content));
    }
    if (exchange.status >= 200 && exchange.status < 300) {
      const result = this.api.validateRequest(
        { method, path, query: documentedQuery(operation, search), headers: stringHeaders(exchange.headers), body: takenItems(exchange) as object },
        operation,
      );
      if (!result.valid) violations.push(`${where}: the request does not match the document: ${describe(result.errors as AjvError[] | null)}`);
    }
    return violations;
  }

  private checkResponseBody(where: string, operation: Operation, exchange: Exchange, content: Record<string, unknown> | undefined): string[] {
    const body = exchange.responseBody;
    const mediaType = exchange.contentType?.split(";")[0].trim().toLowerCase();
    if (!content) {
      return body && body.length > 0 ? [`${where}: answered a ${mediaType ?? "untyped"} body where the document gives none`] : [];
    }
    if (!mediaType) return body && body.length > 0 ? [`${where}: a body without a Content-Type`] : [`${where}: no body where the document gives one`];
    if (!(mediaType in content)) return [`${where}: content type ${mediaType} is not documented (documented: ${Object.keys(content).join(", ")})`];
    if (mediaType !== "application/json" || body === undefined) return [];
    let json: unknown;
    try {
      json = JSON.parse(body.toString("utf8"));
    } catch {
      return [`${where}: the body is not JSON`];
    }
    const result = this.api.validateResponse(json, operation, exchange.status);
    return result.valid ? [] : [`${where}: the answer does not match the document: ${describe(result.errors as AjvError[] | null)}`];
  }
}

/**
 * Puts the validator in front of an HTTP(S) server's request handler: every exchange is checked once
 * its answer is done (or its connection closed), and the violations are collected in the returned list.
 * Sees everything the service answers, also what is refused before routing (403, 413, invalid JSON).
 */
export function validateServerTraffic(server: Server, validator: OpenApiValidator): { violations: string[]; settled: () => Promise<void> } {
  const violations: string[] = [];
  let pending = 0;
  let idle: (() => void) | null = null;
  const handlers = server.listeners("request") as ((request: IncomingMessage, response: ServerResponse) => void)[];
  server.removeAllListeners("request");
  server.on("request", (request: IncomingMessage, response: ServerResponse) => {
    pending += 1;
    const sent = captureResponse(response);
    response.once("close", () => {
      try {
        const exchange: Exchange = {
          method: request.method ?? "GET",
          url: request.url ?? "/",
          headers: request.headers,
          requestBody: (request as IncomingMessage & { body?: unknown }).body,
          status: response.statusCode,
          contentType: sent.contentType(),
          responseBody: sent.body(),
        };
        if (response.headersSent) violations.push(...validator.check(exchange));
      } catch (error) {
        violations.push(`${request.method} ${request.url}: the validator failed: ${String(error)}`);
      } finally {
        pending -= 1;
        if (pending === 0) idle?.();
      }
    });
    for (const handler of handlers) handler.call(server, request, response);
  });
  return {
    violations,
    settled: () => (pending === 0 ? Promise.resolve() : new Promise<void>((resolve) => (idle = resolve))),
  };
}

/**
 * Keeps the Content-Type and the bytes of a response as it writes them (headers set with setHeader, as
 * Express does, or given to writeHead); an event stream is never kept (it may not end).
 */
function captureResponse(response: ServerResponse): { contentType: () => string | undefined; body: () => Buffer | undefined } {
  const chunks: Buffer[] = [];
  let size = 0;
  let kept = true;
  let headContentType: string | undefined;
  const contentType = () => headContentType ?? response.getHeader("content-type")?.toString();
  const keep = (chunk: unknown, encoding: unknown) => {
    if (!kept || chunk === undefined || chunk === null || typeof chunk === "function") return;
    if (contentType()?.startsWith("text/event-stream")) {
      kept = false;
      chunks.length = 0;
      return;
    }
    const buffer = Buffer.isBuffer(chunk)
      ? chunk
      : chunk instanceof Uint8Array
        ? Buffer.from(chunk)
        : typeof chunk === "string"
          ? Buffer.from(chunk, typeof encoding === "string" ? (encoding as BufferEncoding) : "utf8")
          : Buffer.from(JSON.stringify(chunk));
    size += buffer.length;
    if (size > MAX_CAPTURED_BYTES) {
      kept = false;
      chunks.length = 0;
      return;
    }
    chunks.push(buffer);
  };
  const writeHead = response.writeHead.bind(response) as (...args: unknown[]) => ServerResponse;
  const write = response.write.bind(response) as (...args: unknown[]) => boolean;
  const end = response.end.bind(response) as (...args: unknown[]) => ServerResponse;
  response.writeHead = (...args: unknown[]) => {
    const headers = args.find((arg) => typeof arg === "object" && arg !== null);
    headContentType = headerValue(headers, "content-type") ?? headContentType;
    return writeHead(...args);
  };
  response.write = ((...args: unknown[]) => {
    keep(args[0], args[1]);
    return write(...args);
  }) as ServerResponse["write"];
  response.end = ((...args: unknown[]) => {
    keep(args[0], args[1]);
    return end(...args);
  }) as ServerResponse["end"];
  return { contentType, body: () => (kept ? Buffer.concat(chunks) : undefined) };
}

/** A header from writeHead's headers: an object, or a flat [name, value, ...] list. */
function headerValue(headers: unknown, name: string): string | undefined {
  if (Array.isArray(headers)) {
    for (let index = 0; index + 1 < headers.length; index += 2) {
      if (String(headers[index]).toLowerCase() === name) return String(headers[index + 1]);
    }
    return undefined;
  }
  if (typeof headers !== "object" || headers === null) return undefined;
  const found = Object.entries(headers).find(([key]) => key.toLowerCase() === name);
  return found === undefined ? undefined : String(found[1]);
}

/**
 * The query parameters the operation documents. Others are left out: OpenAPI cannot say "no other
 * parameters", and the service ignores the ones it does not read (a test's ?eventId= on GET
 * /api/v1/tickets/{ticketId}, say), so they are not a violation.
 */
function documentedQuery(operation: Operation, search: string): Record<string, string | string[]> {
  const names = new Set((operation.parameters ?? []).flatMap((parameter) => ("in" in parameter && parameter.in === "query" ? [parameter.name] : [])));
  const query: Record<string, string | string[]> = {};
  for (const [name, value] of new URLSearchParams(search)) {
    if (!names.has(name)) continue;
    const previous = query[name];
    query[name] = previous === undefined ? value : [...(Array.isArray(previous) ? previous : [previous]), value];
  }
  return query;
}

/** The request body without the items the answer refused one by one (status "error" at their position). */
function takenItems(exchange: Exchange): unknown {
  const body = exchange.requestBody;
  if (!Array.isArray(body) || exchange.responseBody === undefined) return body;
  let answer: unknown;
  try {
    answer = JSON.parse(exchange.responseBody.toString("utf8"));
  } catch {
    return body;
  }
  const results = Array.isArray(answer) ? answer : (answer as { data?: unknown } | null)?.data;
  if (!Array.isArray(results) || results.length !== body.length) return body;
  return body.filter((_item, position) => (results[position] as { status?: unknown } | null)?.status !== "error");
}

function stringHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const result: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) result[name] = value;
  return result;
}

function describe(errors: AjvError[] | null | undefined): string {
  if (!errors || errors.length === 0) return "(no detail)";
  const shown = errors.slice(0, 6).map((error) => `${error.instancePath || "/"} ${error.message ?? ""} ${JSON.stringify(error.params ?? {})}`.trim());
  return shown.join("; ") + (errors.length > shown.length ? `; and ${errors.length - shown.length} more` : "");
}
