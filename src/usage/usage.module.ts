import { Module } from "@nestjs/common";

import { UsageController } from "./usage.controller";
import { UsageService } from "./usage.service";
import { UsageStore } from "./usage.store";

/**
 * GET /api/v1/usage: an organization's usage and gas statement, read from usage_entries, which the
 * ledger's acceptances and the chain writer's finalizations append to (src/ledger/usage-entries.ts).
 * Part of the API role only; the operator's `usage report` builds UsageService on its own.
 */
@Module({
  controllers: [UsageController],
  providers: [UsageService, UsageStore],
})
export class UsageModule {}
