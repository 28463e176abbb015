import type { OpenAPIObject } from "@nestjs/swagger";

import { MAX_JSON_DEPTH } from "./json-nesting";

const ERROR_BODY_SCHEMA = { $ref: "#/components/schemas/ErrorBodyDto" };

/**
 * The answers the HTTP layer gives on every route, whatever its controller does: the JSON body parser
 * runs for every request that has a body (a GET too), REQUIRE_HTTPS refuses plain HTTP before routing,
 * path and query parameters are checked (TextParamsPipe), every route but the docs reads the database
 * (the API key at least) and answers 503 while it is unreachable, and a failure nobody expected is a 500.
 */
const COMMON_ANSWERS: Record<string, string> = {
  "400":
    `invalid_json (a body that is not JSON, whatever the method), nesting_too_deep (a JSON body nesting arrays and objects more than ${MAX_JSON_DEPTH} levels deep), ` +
    "invalid_body (a body that does not decompress as its Content-Encoding says), https_required (plain HTTP where HTTPS is required), " +
    "invalid_field (a path or query parameter the route refuses: a NUL or a lone surrogate in any, a path parameter that is not percent-encoded UTF-8, " +
    "a value outside its documented range; or a malformed Idempotency-Key).",
  "413": "payload_too_large: the body exceeds the endpoint's size cap.",
  "415": "invalid_body: the body is not UTF-8 JSON: a Content-Type charset other than utf-8, or a Content-Encoding other than gzip, deflate, br or zstd.",
  "500": "internal_error: something went wrong on the service's side; nothing of the request was applied.",
  "503":
    "service_unavailable: a dependency (the database) cannot be reached just now; nothing of the request was applied. " +
    "Send it again after the Retry-After header's seconds (with the same Idempotency-Key, where the endpoint takes one).",
};

/** The headers that come with a common answer. */
const COMMON_ANSWER_HEADERS: Record<string, Record<string, { description: string; schema: { type: "integer"; minimum: number } }>> = {
  "503": { "Retry-After": { description: "Seconds to wait before sending the request again.", schema: { type: "integer", minimum: 1 } } },
};

/**
 * Documents those answers on every operation of the document with the shared error body: added where
 * the status is missing, and where the status is documented with another content type only (the
 * ticket page's HTML 400), its JSON form is added beside it.
 */
export function documentCommonAnswers(document: OpenAPIObject): OpenAPIObject {
  for (const path of Object.values(document.paths)) {
    for (const method of ["get", "post", "put", "patch", "delete"] as const) {
      const operation = path[method];
      if (!operation) continue;
      for (const [status, description] of Object.entries(COMMON_ANSWERS)) {
        const documented = operation.responses[status] as { description?: string; content?: Record<string, unknown> } | undefined;
        if (!documented) {
          const headers = COMMON_ANSWER_HEADERS[status];
          operation.responses[status] = { description, ...(headers ? { headers } : {}), content: { "application/json": { schema: ERROR_BODY_SCHEMA } } };
        } else if (documented.content && !documented.content["application/json"]) {
          documented.description = `${documented.description ?? ""}\n\nAs JSON (application/json): ${description}`.trim();
          documented.content["application/json"] = { schema: ERROR_BODY_SCHEMA };
        }
      }
      operation.responses = Object.fromEntries(Object.entries(operation.responses).sort(([a], [b]) => a.localeCompare(b)));
    }
  }
  return document;
}
