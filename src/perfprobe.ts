import "reflect-metadata";
import { DataSource } from "typeorm";
import { dataSourceOptions } from "./database/data-source-options";
import { LedgerService } from "./chain/ledger/ledger.service";
import { TicketActions } from "./tickets/ticket-actions";
async function main() {
  const ds = new DataSource(dataSourceOptions("postgres://postgres@127.0.0.1:5432/trs_manual")); await ds.initialize();
  const ledger = new LedgerService(ds, { requestFlush: async () => {} } as never);
  const [org] = await ds.query("SELECT id, ticketeer_id FROM organizations WHERE ticketeer_id='play'");
  for (let r = 0; r < 4; r++) {
    const tag = Math.random().toString(36).slice(2);
    const items = Array.from({ length: 5000 }, (_, i) => ({ descriptor: TicketActions.sold, requestedAs: "soldTicket", raw: { eventId: "e1", ticketId: `p-${tag}-${i}`, price: "49.95" } }));
    const t = performance.now();
    const out = await ledger.acceptItems({ id: org.id, ticketeerId: "play", name: "", keyPrefix: "" }, items as never, null);
    console.log("acceptItems", (performance.now() - t).toFixed(0), out.filter((o) => o.promise).length);
  }
  await ds.destroy();
}
main();
import { TicketWorkingSet } from "./tickets/ticket-working-set";
import { ActionRecorder } from "./chain/ledger/action-recorder";
import { EventWorkingSet } from "./events/event-working-set";
import * as ia from "./chain/ledger/item-acceptance";
for (const [cls, m] of [[TicketWorkingSet, "flush"], [ActionRecorder, "flush"], [EventWorkingSet, "flush"], [EventWorkingSet, "load"], [TicketWorkingSet, "load"]] as const) {
  const orig = (cls.prototype as any)[m];
  (cls.prototype as any)[m] = async function (...a: unknown[]) { const t = performance.now(); const r = await orig.apply(this, a); console.log(cls.name, m, (performance.now() - t).toFixed(0)); return r; };
}
