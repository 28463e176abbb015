import { describe, expect, it } from "vitest";

import { KIND_OF_STREAM_ACTION } from "../common/actions";
import { CHECK_IN_STREAM_ACTIONS, scopeOfStreamActions } from "./stream-scope";

describe("scopeOfStreamActions", () => {
  it("lets a scan key send the check-ins, and only them", () => {
    expect(CHECK_IN_STREAM_ACTIONS).toEqual(["scannedTicket", "checkedInTicket"]);
    for (const action of Object.keys(KIND_OF_STREAM_ACTION)) {
      const expected = CHECK_IN_STREAM_ACTIONS.includes(action) ? "scan" : "full";
      expect(scopeOfStreamActions([{ action, data: { ticketId: "t-1" } }]), action).toBe(expected);
    }
  });

  it("needs a full key as soon as one action is not a check-in, wherever it is", () => {
    const scan = { action: "scannedTicket", data: { ticketId: "t-1" } };
    const checkIn = { action: "checkedInTicket", data: { ticketId: "t-2" } };
    expect(scopeOfStreamActions([scan, checkIn, scan])).toBe("scan");
    expect(scopeOfStreamActions([scan, checkIn, { action: "invalidatedTicket", data: { ticketId: "t-1" } }])).toBe("full");
    expect(scopeOfStreamActions([{ action: "soldTicket", data: {} }, scan])).toBe("full");
  });

  it("needs a full key for an entry that names no action a scan key may take", () => {
    for (const entry of [null, 42, "scannedTicket", [], {}, { action: "ScannedTicket" }, { action: ["scannedTicket"] }, { data: { ticketId: "t" } }]) {
      expect(scopeOfStreamActions([entry]), JSON.stringify(entry)).toBe("full");
    }
  });

  it("leaves a body that is no list, or an empty one, to the route's scope and the endpoint's answer", () => {
    expect(scopeOfStreamActions({ action: "soldTicket" })).toBe("scan");
    expect(scopeOfStreamActions(undefined)).toBe("scan");
    expect(scopeOfStreamActions([])).toBe("scan");
  });
});
