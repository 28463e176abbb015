import type { Clock } from "../../src/common/clock";

/** A clock that follows the real one, moved ahead when a test says so: hours pass without waiting for them. */
export class TestClock implements Clock {
  private aheadMs = 0;

  now(): Date {
    return new Date(Date.now() + this.aheadMs);
  }

  advanceHours(hours: number): void {
    this.aheadMs += hours * 3_600_000;
  }

  advanceSeconds(seconds: number): void {
    this.aheadMs += seconds * 1_000;
  }
}
