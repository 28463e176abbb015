import type { OpenAPIObject } from "@nestjs/swagger";

import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENT_REPLAYED_HEADER } from "./idempotency.interceptor";

const ERROR_BODY = { "application/json": { schema: { $ref: "#/components/schemas/ErrorBodyDto" } } };
const IN_USE = "idempotency_key_in_use: the first request with this Idempotency-Key is still running.";
const NOT_KEPT =
  "idempotency_answer_not_kept: the first request with this Idempotency-Key was applied, but its answer was over IDEMPOTENCY_MAX_ANSWER_BYTES and was not kept; nothing applied again.";
const EXHAUSTED =
  "idempotency_keys_exhausted: the organization holds IDEMPOTENCY_MAX_KEYS_PER_ORGANIZATION keys; a new one is refused, nothing applied, until its oldest expires (Retry-After).";
const REUSED = "idempotency_key_reused: this Idempotency-Key was used for another request (endpoint or body) in the last 24 hours.";

const REPLAYED_HEADER = {
  description: "Present on an answer sent again for a retried Idempotency-Key: the first request's status and body, nothing applied again.",
  schema: { type: "string", enum: ["true"] },
};

/** Adds `text` to the description of the answer `status`, or documents that answer with it. */
function addDescription(responses: Record<string, object | undefined>, status: string, text: string): void {
  const answer = responses[status] as { description?: string } | undefined;
  if (answer) answer.description = `${answer.description ?? ""}\n\n${text}`.trim();
  else responses[status] = { description: text, content: ERROR_BODY };
}

/** Documents the Idempotency-Key header, its replay header and its 409 and 422 on every POST of the document. */
export function documentIdempotencyKeys(document: OpenAPIObject): OpenAPIObject {
  for (const path of Object.values(document.paths)) {
    const operation = path.post;
    if (!operation) continue;
    operation.parameters = [
      ...(operation.parameters ?? []),
      {
        name: IDEMPOTENCY_KEY_HEADER,
        in: "header",
        required: false,
        schema: { type: "string", maxLength: 255, example: "5f0c1d8e-7c5a-4b9e-9a3e-2b1f0e9d8c7a" },
        description:
          "Makes the request safe to retry: the same key with the same body within 24 hours answers the first answer again " +
          `(status and body, with ${IDEMPOTENT_REPLAYED_HEADER}: true) and applies nothing. Per organization; 1 to 255 visible ASCII characters.`,
      },
    ];
    addDescription(operation.responses, "409", `${IN_USE}\n\n${NOT_KEPT}`);
    addDescription(operation.responses, "429", EXHAUSTED);
    operation.responses["422"] = { description: REUSED, content: ERROR_BODY };
    for (const [status, answer] of Object.entries(operation.responses)) {
      if (status === "403" || !answer || !("description" in answer)) continue;
      answer.headers = { ...answer.headers, [IDEMPOTENT_REPLAYED_HEADER]: REPLAYED_HEADER };
    }
  }
  return document;
}
