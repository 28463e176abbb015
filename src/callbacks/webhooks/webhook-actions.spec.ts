import { describe, expect, it } from "vitest";

import { ACTION_KINDS } from "../../common/actions";
import { actionsProblem, WEBHOOK_ACTIONS } from "./webhook-actions";

describe("an endpoint's actions", () => {
  it("takes every callback action and the two notices, and nothing else", () => {
    expect(WEBHOOK_ACTIONS).toEqual([...ACTION_KINDS, "endpoint_disabled", "callback_exhausted"]);
    expect(actionsProblem(["scanned", "transferred"])).toBeNull();
    expect(actionsProblem(["callback_exhausted"])).toBeNull();
  });

  it("names the unknown action and its place in the list", () => {
    expect(actionsProblem(["scanned", "scaned"])).toMatch(/^\[1\] "scaned" is not a callback action: one of newEvent, /);
    expect(actionsProblem(["test"])).toMatch(/^\[0\] "test" is not a callback action/);
    expect(actionsProblem([7])).toMatch(/^\[0\] 7 is not a callback action/);
  });

  it("refuses an empty list, a list naming an action twice, and anything but a list", () => {
    expect(actionsProblem([])).toMatch(/at least one/);
    expect(actionsProblem(["sold", "sold"])).toMatch(/twice/);
    expect(actionsProblem("scanned")).toMatch(/must be a list/);
  });
});
