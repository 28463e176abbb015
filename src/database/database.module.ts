import { Module } from "@nestjs/common";
import { TypeOrmModule } from "@nestjs/typeorm";

import type { AppConfig } from "../config/app-config";
import { APP_CONFIG } from "../config/config.module";
import { dataSourceOptions } from "./data-source-options";

@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => dataSourceOptions(config.database.url),
    }),
  ],
})
export class DatabaseModule {}
