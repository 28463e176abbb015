import { Global, Module } from "@nestjs/common";

import { AdminGate } from "./admin-gate";
import { OperationsServer } from "./operations-server";

/** The operations views' gate (the admin credential and its throttle) and the operations port's server. */
@Global()
@Module({ providers: [AdminGate, OperationsServer], exports: [AdminGate, OperationsServer] })
export class AdminModule {}
