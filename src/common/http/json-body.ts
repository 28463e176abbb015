import type { IncomingMessage } from "node:http";
import { MIMEType } from "node:util";

import express, { type NextFunction, type Request, type RequestHandler, type Response } from "express";

import { nestsDeeperThan } from "./json-nesting";

/** The media types read as JSON. */
const JSON_TYPES = ["application/json", "application/*+json"];

/**
 * A refusal of the body before it reaches an endpoint, in the form body-parser gives its own
 * (`type`, `status`): bodyErrorAnswer turns each type into the documented answer.
 */
export class BodyRefusal extends Error {
  constructor(
    readonly type: "entity.too.deep" | "charset.unsupported" | "entity.decompress.failed",
    readonly status: number,
    readonly depth?: number,
  ) {
    super(type);
    this.name = "BodyRefusal";
  }
}

/**
 * The JSON body parser of every API route: body-parser (express.json) capped at `limit` bytes, and
 * three checks of ours around it. A charset other than UTF-8 is refused before the body is read
 * (body-parser reads any utf-*: a UTF-16 body was accepted); the decompressed bytes are refused
 * when they nest deeper than `maxDepth`, before JSON.parse builds anything; a body that does not
 * decompress as its Content-Encoding says is marked as such, so that no zlib message reaches the
 * client.
 */
export function jsonBody(options: { limit: number; maxDepth: number }): RequestHandler {
  const parse = express.json({
    limit: options.limit,
    strict: false,
    type: JSON_TYPES,
    verify: (_request: IncomingMessage, _response: unknown, bytes: Buffer) => {
      if (nestsDeeperThan(bytes, options.maxDepth)) throw new BodyRefusal("entity.too.deep", 400, options.maxDepth);
    },
  });
  return (request: Request, response: Response, next: NextFunction) => {
    if (request.is(JSON_TYPES) && !isUtf8(request.headers["content-type"])) {
      next(new BodyRefusal("charset.unsupported", 415));
      return;
    }
    parse(request, response, (error?: unknown) => next(error === undefined ? undefined : decompressionFailure(error, request)));
  };
}

/** Whether the Content-Type's charset, if it names one, is UTF-8 (the only one RFC 8259 allows between systems). */
function isUtf8(contentType: string | undefined): boolean {
  if (contentType === undefined) return true;
  let charset: string | null;
  try {
    charset = new MIMEType(contentType).params.get("charset");
  } catch {
    return true; // not a media type at all: body-parser does not take it as JSON either
  }
  return charset === null || charset.toLowerCase() === "utf-8";
}

/**
 * body-parser passes on the decompression stream's own error (zlib's "incorrect header check",
 * brotli's "Decompression failed") with no `type`; every error of its own has one.
 */
function decompressionFailure(error: unknown, request: Request): unknown {
  const typed = typeof (error as { type?: unknown } | null)?.type === "string";
  const encoding = (request.headers["content-encoding"] ?? "identity").toLowerCase();
  if (typed || encoding === "identity") return error;
  return Object.assign(new BodyRefusal("entity.decompress.failed", 400), { cause: error });
}
