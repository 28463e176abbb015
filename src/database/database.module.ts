import { type DynamicModule, Module } from "@nestjs/common";
import { TypeOrmModule } from "@nestjs/typeorm";
import type { DataSourceOptions } from "typeorm";

import type { AppConfig } from "../config/app-config";
import { APP_CONFIG } from "../config/config.module";
import { dataSourceOptions } from "./data-source-options";

@Module({})
export class DatabaseModule {
  /** The process's data source, with the entities the composition root hands in. */
  static forRoot(entities: NonNullable<DataSourceOptions["entities"]>): DynamicModule {
    return {
      module: DatabaseModule,
      imports: [
        TypeOrmModule.forRootAsync({
          inject: [APP_CONFIG],
          useFactory: (config: AppConfig) => dataSourceOptions(config.database.url, entities),
        }),
      ],
    };
  }
}
