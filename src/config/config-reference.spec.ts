import { describe, expect, it } from "vitest";

import { configReference, undescribedVariables } from "./config-reference";

function variable(name: string) {
  const found = configReference()
    .flatMap((section) => section.variables)
    .find((entry) => entry.name === name);
  if (!found) throw new Error(`${name} is not in the reference`);
  return found;
}

describe("the configuration reference", () => {
  it("describes every variable the schema reads, and no variable it does not read (describe a new one in config-descriptions.ts)", () => {
    expect(undescribedVariables()).toEqual({ undescribed: [], unread: [] });
  });

  it("takes types, bounds and defaults from the schema itself", () => {
    expect(variable("PORT")).toMatchObject({ default: "`3000`", exampleValue: "3000", accepts: "an integer from 0 to 65535" });
    expect(variable("CALLBACK_RETRY_SCALE")).toMatchObject({ default: "`1`", accepts: "a number from 0.0001 to 1" });
    expect(variable("TICKET_BODY_LIMIT_BYTES")).toMatchObject({ default: "`4194304` (4 MiB)", accepts: "an integer, at least 1024" });
    expect(variable("CHAIN_RPC_URLS").accepts).toBe("comma-separated URLs (`http:` or `https:`)");
  });

  it("says when a default differs in production, and lists no single value for it", () => {
    expect(variable("SHUTDOWN_GRACE_MS")).toMatchObject({ default: "`5000` in production, else `0`", exampleValue: null });
    expect(variable("DATABASE_CREATE_IF_MISSING").default).toBe("`false` in production, else `true`");
  });

  it("keeps a variable's typed reading when the schema also looks at its raw value", () => {
    expect(variable("APP_ROLE")).toMatchObject({ default: "`all`", accepts: "one of `all`, `api`, `worker`" });
    expect(variable("CONFIRMATIONS")).toMatchObject({ default: "`1`", accepts: "an integer from 1 to 1000, or `finalized`" });
  });
});
