import { Global, Inject, Module } from "@nestjs/common";

import { type AppConfig, loadConfig } from "./app-config";

export const APP_CONFIG = Symbol("APP_CONFIG");

/** Injects the validated configuration: `@InjectConfig() config: AppConfig`. */
export const InjectConfig = (): ParameterDecorator => Inject(APP_CONFIG);

@Global()
@Module({})
export class ConfigModule {
  static forRoot(config: AppConfig = loadConfig()) {
    return { module: ConfigModule, providers: [{ provide: APP_CONFIG, useValue: config }], exports: [APP_CONFIG] };
  }
}
