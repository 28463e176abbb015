import { Injectable } from "@nestjs/common";

import type { AppConfig } from "../../../config/app-config";
import { InjectConfig } from "../../../config/config.module";

/**
 * Test-only fault injection (CHAIN_WRITER_CRASH_AT, refused in production): the worker dies on the
 * spot, as a power cut would, so the tests can prove the write path loses and repeats nothing.
 */
@Injectable()
export class CrashPoints {
  constructor(@InjectConfig() private readonly config: AppConfig) {}

  reach(point: NonNullable<AppConfig["chain"]["crashAt"]>): void {
    if (this.config.chain.crashAt === point) process.kill(process.pid, "SIGKILL");
  }
}
