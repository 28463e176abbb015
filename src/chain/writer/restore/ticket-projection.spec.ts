import { describe, expect, it } from "vitest";

import type { ChainTicketFacts } from "./subject-facts";
import { type LiveTicketAction, projectTicket } from "./ticket-projection";

const WALLET = "0x52908400098527886E0F7030069857D2E4169EE7";
const HOLDER = "0x1111111111111111111111111111111111111111";
const CUSTODY = "0x2222222222222222222222222222222222222222";
const chain = (flags: Partial<ChainTicketFacts> = {}): ChainTicketFacts => ({
  minted: true,
  checkedIn: false,
  invalidated: false,
  claimed: false,
  holder: CUSTODY,
  ...flags,
});
const done = (kind: string, payload: LiveTicketAction["payload"] = null): LiveTicketAction => ({ kind, open: false, payload });
const onTheWay = (kind: string, payload: LiveTicketAction["payload"] = null): LiveTicketAction => ({ kind, open: true, payload });
const SOLD = done("sold", { price: "10", orderTime: "1" });

describe("projectTicket", () => {
  it("is the chain's state when nothing is on its way", () => {
    expect(projectTicket(chain({ checkedIn: true }), [SOLD, done("scanned")])).toEqual({
      sold: true,
      checkedIn: true,
      invalidated: false,
      claimed: false,
      claimedTo: null,
      resales: 0,
      price: "10",
      orderTime: "1",
    });
  });

  it("counts the resales that did not fail and takes the price of the last", () => {
    const projected = projectTicket(chain(), [SOLD, done("resold", { price: "20", orderTime: "2" }), onTheWay("resold", { price: "30", orderTime: "3" })]);
    expect(projected).toMatchObject({ resales: 2, price: "30", orderTime: "3" });
  });

  it("applies the actions on their way as the registry will: a check-in of a ticket invalidated elsewhere changes nothing", () => {
    expect(projectTicket(chain({ invalidated: true }), [SOLD, onTheWay("scanned"), onTheWay("claimed", { to: WALLET })])).toMatchObject({
      checkedIn: false,
      invalidated: true,
      claimed: false,
      claimedTo: null,
    });
  });

  it("neither invalidates nor resells a ticket the chain has checked in", () => {
    expect(projectTicket(chain({ checkedIn: true }), [SOLD, onTheWay("invalidated"), onTheWay("resold", { price: "9", orderTime: "9" })])).toMatchObject({
      checkedIn: true,
      invalidated: false,
      resales: 0,
      price: "10",
    });
  });

  it("claims to the claim on its way, once its check-in applies", () => {
    expect(projectTicket(chain(), [SOLD, onTheWay("scanned"), onTheWay("claimed", { to: WALLET })])).toMatchObject({
      checkedIn: true,
      claimed: true,
      claimedTo: WALLET,
    });
  });

  it("names the claim's receiver from the ledger's confirmed claim, else from the chain's holder", () => {
    const claimedOnChain = chain({ checkedIn: true, claimed: true, holder: HOLDER });
    expect(projectTicket(claimedOnChain, [SOLD, done("scanned"), done("claimed", { to: WALLET })]).claimedTo).toBe(WALLET);
    expect(projectTicket(claimedOnChain, [SOLD, done("scanned")]).claimedTo).toBe(HOLDER);
  });

  it("is not sold when the ledger's sale failed, whatever token the chain holds under its id", () => {
    expect(projectTicket(chain(), [done("scanned")]).sold).toBe(false);
    expect(projectTicket(chain({ minted: false, holder: null }), []).sold).toBe(false);
  });

  it("is sold while its sale is on its way, though nothing is minted yet", () => {
    expect(projectTicket(chain({ minted: false, holder: null }), [onTheWay("sold", { price: "5", orderTime: "1" })])).toMatchObject({ sold: true, price: "5" });
  });
});
