import { Module } from "@nestjs/common";

import { ActionChangesListener } from "./action-changes.listener";

/** The one LISTEN connection of a process to the ledger's change notifications, for whoever must hear of a change at once. */
@Module({
  providers: [ActionChangesListener],
  exports: [ActionChangesListener],
})
export class LiveChangesModule {}
