import { describe, expect, it } from "vitest";

import { ACTION_ERROR_CODES, chainFailureCode, RegistryItemFailure } from "./registry-failures";

describe("chainFailureCode", () => {
  it("names a refusal by the registry's reason in snake case", () => {
    expect(chainFailureCode(RegistryItemFailure.TicketCheckedIn)).toBe("onchain_ticket_checked_in");
    expect(chainFailureCode(RegistryItemFailure.InvalidReceiver)).toBe("onchain_invalid_receiver");
    expect(chainFailureCode(RegistryItemFailure.EventCancelled)).toBe("onchain_event_cancelled");
  });

  it("gives a reason this version does not name a code of the documented set", () => {
    expect(chainFailureCode(99 as RegistryItemFailure)).toBe("onchain_refused");
  });

  it("documents every code a refusal can produce, and no code for None", () => {
    const named = Object.values(RegistryItemFailure).filter(
      (value): value is RegistryItemFailure => typeof value === "number" && value !== RegistryItemFailure.None,
    );
    for (const reason of named) expect(ACTION_ERROR_CODES).toContain(chainFailureCode(reason));
    expect(ACTION_ERROR_CODES).not.toContain("onchain_none");
    expect(new Set(ACTION_ERROR_CODES).size).toBe(ACTION_ERROR_CODES.length);
  });
});
