import { Injectable } from "@nestjs/common";

import type { AppConfig } from "../config/app-config";
import { InjectConfig } from "../config/config.module";
import type { UsageStatementDto } from "./dto/usage-statement.dto";
import { UsageQuery } from "./usage-query";
import { reportOf, statementOf, type UsageReport } from "./usage-statement";
import { UsageStore } from "./usage.store";

/** What GET /api/v1/usage and `usage report` ask for, before it is checked. */
export interface RawUsageQuery {
  from?: unknown;
  to?: unknown;
  groupBy?: unknown;
}

/** Usage statements: one organization's (the API's), or every organization's (the operator's CLI). */
@Injectable()
export class UsageService {
  constructor(
    private readonly store: UsageStore,
    @InjectConfig() private readonly config: AppConfig,
  ) {}

  /** Checks the range (400 invalid_field naming the parameter) against USAGE_MAX_RANGE_DAYS. */
  query(raw: RawUsageQuery): UsageQuery {
    return UsageQuery.parse(raw, this.config.usage.maxRangeDays);
  }

  async statement(organization: { id: string; ticketeerId: string }, query: UsageQuery): Promise<UsageStatementDto> {
    return statementOf(organization.ticketeerId, query, await this.store.organizationSums(organization.id, query));
  }

  async report(query: UsageQuery): Promise<UsageReport> {
    const [organizations, sums] = await Promise.all([this.store.organizations(), this.store.allSums(query)]);
    return reportOf(organizations, query, sums);
  }
}
