import { DataSource } from "typeorm";

import { loadConfig } from "../config/app-config";
import { dataSourceOptions } from "./data-source-options";

/** The data source of TypeORM's CLI (`npm run migration:run`, `migration:revert`, `migration:generate`). */
export default new DataSource(dataSourceOptions(loadConfig().database.url));
