import { DataSource } from "typeorm";

import { loadConfig } from "./config/app-config";
import { dataSourceOptions } from "./database/data-source-options";
import { ENTITIES } from "./entities";

/** The data source of TypeORM's CLI (`npm run migration:revert`, `migration:generate`). */
export default new DataSource(dataSourceOptions(loadConfig().database.url, ENTITIES));
