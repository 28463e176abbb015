import { Module } from "@nestjs/common";

import { RetentionService } from "./retention.service";
import { RetentionStore } from "./retention.store";

/** Retention of what the service needs only for a while (worker role): see RetentionService. */
@Module({ providers: [RetentionStore, RetentionService], exports: [RetentionService] })
export class RetentionModule {}
