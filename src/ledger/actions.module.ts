import { Module } from "@nestjs/common";

import { ActionsController } from "./actions.controller";
import { ActionsService } from "./actions.service";
import { ActionCancellationStore } from "./cancellation/action-cancellation.store";
import { LedgerModule } from "./ledger.module";
import { ActionChangesStore } from "./live/action-changes.store";
import { ActionEventsController } from "./live/action-events.controller";
import { ActionEventsService } from "./live/action-events.service";
import { LiveChangesModule } from "./live/live-changes.module";

/** `GET /api/v1/actions/{promise}` and the live status stream `GET /api/v1/actions/events`: part of the API role only. */
@Module({
  imports: [LedgerModule, LiveChangesModule],
  // ActionEventsController first: its `events` route must come before `:promise`.
  controllers: [ActionEventsController, ActionsController],
  providers: [ActionsService, ActionCancellationStore, ActionChangesStore, ActionEventsService],
})
export class ActionsModule {}
