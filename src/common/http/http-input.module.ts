import { Module } from "@nestjs/common";
import { APP_PIPE } from "@nestjs/core";

import { TextParamsPipe } from "./text-params.pipe";

/** Checks on what every endpoint receives in its path and query. */
@Module({ providers: [{ provide: APP_PIPE, useClass: TextParamsPipe }] })
export class HttpInputModule {}
