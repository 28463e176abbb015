import { describe, expect, it } from "vitest";

import { isDatabaseUnreachable } from "./database-unreachable";

const withCode = (code: string, message = "failed") => Object.assign(new Error(message), { code });

describe("isDatabaseUnreachable", () => {
  it.each([
    ["a refused connection", withCode("ECONNREFUSED", "connect ECONNREFUSED 127.0.0.1:5432")],
    ["a reset connection", withCode("ECONNRESET", "read ECONNRESET")],
    ["the server shutting down (57P01)", withCode("57P01", "terminating connection due to administrator command")],
    ["the server crashed (57P02)", withCode("57P02")],
    ["the server starting up (57P03)", withCode("57P03", "the database system is starting up")],
    ["a connection exception (class 08)", withCode("08006")],
    ["a connection ended under a query", new Error("Connection terminated unexpectedly")],
    ["a connect that timed out", new Error("Connection terminated due to connection timeout")],
    ["the pool's connection timeout", new Error("timeout exceeded when trying to connect")],
    ["every address refused", Object.assign(new AggregateError([withCode("ECONNREFUSED"), withCode("ECONNREFUSED")]), { code: "ECONNREFUSED" })],
    ["TypeORM's wrapper of a driver error", Object.assign(new Error("query failed"), { driverError: withCode("57P01") })],
    ["an error caused by one", new Error("lookup failed", { cause: new Error("Connection terminated unexpectedly") })],
  ])("%s is the database unreachable", (_case, error) => {
    expect(isDatabaseUnreachable(error)).toBe(true);
  });

  it.each([
    ["a syntax error (42601)", withCode("42601", 'syntax error at or near "SELEC"')],
    ["a unique violation (23505)", withCode("23505", "duplicate key value violates unique constraint")],
    ["a statement timeout (57014)", withCode("57014", "canceling statement due to statement timeout")],
    ["an unknown column", Object.assign(new Error("query failed"), { driverError: withCode("42703", 'column "nope" does not exist') })],
    ["a plain bug", new TypeError("Cannot read properties of undefined")],
    ["not an error", "Connection terminated unexpectedly"],
    ["nothing", undefined],
  ])("%s is not", (_case, error) => {
    expect(isDatabaseUnreachable(error)).toBe(false);
  });
});
