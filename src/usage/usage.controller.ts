import { Controller, Get, Query, Req, Res } from "@nestjs/common";
import { ApiBadRequestResponse, ApiExtraModels, ApiOkResponse, ApiOperation, ApiQuery, ApiTags, getSchemaPath } from "@nestjs/swagger";
import type { Request, Response } from "express";

import { type AuthenticatedOrganization, CurrentOrganization } from "../auth/authenticated-organization";
import { ErrorBodyDto } from "../common/errors/error-body.dto";
import { ApiCommonReadResponses } from "../common/http/api-responses";
import { UsageStatementDto } from "./dto/usage-statement.dto";
import { statementCsv } from "./usage-csv";
import { USAGE_GROUPINGS } from "./usage-query";
import { UsageService } from "./usage.service";

const CSV = "text/csv";

const CSV_EXAMPLE =
  "day,kind,accepted,confirmed,failed,transactions,gas,feeWei\r\n" +
  "2026-03-01,newEvent,1,1,0,1,212000,6360000000000000\r\n" +
  "2026-03-01,sold,100,99,1,1,600000,18000000000000000\r\n" +
  "2026-03-01,total,101,100,1,1,812000,24360000000000000\r\n" +
  ",total,101,100,1,1,812000,24360000000000000\r\n";

@ApiTags("usage")
@ApiExtraModels(UsageStatementDto)
@Controller("api/v1/usage")
export class UsageController {
  constructor(private readonly usage: UsageService) {}

  @Get()
  @ApiOperation({
    operationId: "getUsage",
    summary: "Your organization's usage and gas statement over a range, by day or by event",
    description:
      "Per group (a UTC day, or an event) and per action kind: the actions accepted, confirmed and failed, the transactions, the gas " +
      "attributed and the fee paid in wei. Each final transaction's gasUsed is split among the items it carried in proportion to each " +
      "item's planned gas, exactly (over all organizations the shares add up to the receipt's gasUsed), and each item's fee is its gas × the " +
      "receipt's effectiveGasPrice. When each counts: accepted at acceptance; confirmed and failed when the action became final; gas, fee " +
      "and transactions when the transaction carrying the action became final (a reverted batch's gas too, though its actions go back in " +
      "line). `Accept: text/csv` answers the same as CSV: a row per group and kind, a `total` row per group, and the range's `total` row last.",
  })
  @ApiQuery({
    name: "from",
    required: true,
    type: String,
    description: "The range's start: an ISO 8601 date (that UTC day's start) or date-time with offset.",
    example: "2026-03-01",
  })
  @ApiQuery({
    name: "to",
    required: true,
    type: String,
    description:
      "The range's end: an ISO 8601 date (that UTC day included: the range ends at the next day's start) or date-time with offset (excluded). " +
      "At most USAGE_MAX_RANGE_DAYS (366 unless the operator set it) after from.",
    example: "2026-03-31",
  })
  @ApiQuery({ name: "groupBy", required: false, enum: USAGE_GROUPINGS, description: "day (UTC days, the default) or event." })
  @ApiOkResponse({
    description: "The statement; with Accept: text/csv, the same as CSV.",
    content: {
      "application/json": { schema: { $ref: getSchemaPath(UsageStatementDto) } },
      [CSV]: { schema: { type: "string" }, example: CSV_EXAMPLE },
    },
  })
  @ApiBadRequestResponse({
    type: ErrorBodyDto,
    description:
      "invalid_field naming from or to (missing, not an ISO 8601 date or date-time, a day the calendar does not have), from (not before to), " +
      "to (more than USAGE_MAX_RANGE_DAYS after from) or groupBy (not day or event).",
  })
  @ApiCommonReadResponses()
  async statement(
    @CurrentOrganization() organization: AuthenticatedOrganization,
    @Query("from") from: unknown,
    @Query("to") to: unknown,
    @Query("groupBy") groupBy: unknown,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<UsageStatementDto | string> {
    const statement = await this.usage.statement(organization, this.usage.query({ from, to, groupBy }));
    response.vary("Accept");
    if (request.accepts(["application/json", CSV]) !== CSV) return statement;
    response.type(`${CSV}; charset=utf-8`);
    return statementCsv(statement);
  }
}
