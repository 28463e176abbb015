import { Global, Inject, Module } from "@nestjs/common";

/**
 * The time the service judges by where hours or days must pass (a webhook receiver failing for
 * WEBHOOK_DISABLE_AFTER_HOURS): injected, so that a test can move it forward instead of waiting.
 * Timers, leases and retry delays keep the process's own clock and the database's now().
 */
export interface Clock {
  now(): Date;
}

export const CLOCK = Symbol("CLOCK");

export const SYSTEM_CLOCK: Clock = { now: () => new Date() };

/** Injects the clock: `@InjectClock() clock: Clock`. */
export const InjectClock = (): ParameterDecorator => Inject(CLOCK);

@Global()
@Module({})
export class ClockModule {
  static forRoot(clock: Clock = SYSTEM_CLOCK) {
    return { module: ClockModule, providers: [{ provide: CLOCK, useValue: clock }], exports: [CLOCK] };
  }
}
