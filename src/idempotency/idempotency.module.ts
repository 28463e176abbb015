import { Module } from "@nestjs/common";
import { APP_INTERCEPTOR } from "@nestjs/core";

import { IdempotencyInterceptor } from "./idempotency.interceptor";
import { IdempotencyStore } from "./idempotency.store";

/** Idempotency-Key on every POST of the API (see IdempotencyInterceptor). */
@Module({
  providers: [IdempotencyStore, { provide: APP_INTERCEPTOR, useClass: IdempotencyInterceptor }],
  exports: [IdempotencyStore],
})
export class IdempotencyModule {}
