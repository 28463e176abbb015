import { Counter, Registry } from "prom-client";
import { describe, expect, it } from "vitest";

import { countActionOutcomes } from "./action-outcomes";

async function countsOf(counter: Counter<string>): Promise<Record<string, number>> {
  const { values } = await counter.get();
  return Object.fromEntries(values.map((value) => [Object.values(value.labels).join("/"), value.value]));
}

describe("countActionOutcomes", () => {
  it("counts items by kind and outcome, refusals with their error code", async () => {
    const counter = new Counter({ name: "actions_total", help: "h", labelNames: ["kind", "outcome", "code"], registers: [new Registry()] });
    const items = [
      { requestedAs: "soldTicket" },
      { requestedAs: "soldTicket" },
      { requestedAs: "newEvent" },
      { requestedAs: "soldTicket" },
      { requestedAs: "" },
    ];
    const outcomes = [{}, { error: { code: "ticket_exists" } }, {}, {}, { error: { code: "unknown_action" } }];

    countActionOutcomes(counter, items, outcomes);

    expect(await countsOf(counter)).toEqual({
      "soldTicket/accepted": 2,
      "soldTicket/refused/ticket_exists": 1,
      "newEvent/accepted": 1,
      "unknown/refused/unknown_action": 1,
    });
  });

  it("adds to what was counted before", async () => {
    const counter = new Counter({ name: "actions_total", help: "h", labelNames: ["kind", "outcome", "code"], registers: [new Registry()] });
    countActionOutcomes(counter, [{ requestedAs: "sold" }], [{}]);
    countActionOutcomes(counter, [{ requestedAs: "sold" }, { requestedAs: "sold" }], [{}, {}]);
    expect(await countsOf(counter)).toEqual({ "sold/accepted": 3 });
  });
});
