import { ApiExtraModels, ApiProperty, ApiPropertyOptional } from "@nestjs/swagger";

import { USAGE_GROUPINGS, type UsageGrouping } from "../usage-query";
import { USAGE_KINDS, type UsageKind } from "../usage-kinds";

/** What a statement counts of a set of actions, and what their transactions cost. */
export class UsageCountsDto {
  @ApiProperty({ example: 120, description: "Actions accepted in the range (counted at acceptance)." })
  accepted: number;

  @ApiProperty({ example: 118, description: "Actions that became confirmed on chain in the range (counted when their transaction became final)." })
  confirmed: number;

  @ApiProperty({
    example: 1,
    description: "Actions that became error in the range (the registry refused the item, the batch kept reverting, or the item cannot be written).",
  })
  failed: number;

  @ApiProperty({ example: 2, description: "Distinct transactions whose gas is counted here: those that became final in the range carrying these actions." })
  transactions: number;

  @ApiProperty({
    example: "812345",
    pattern: "^[0-9]+$",
    description:
      "Gas attributed to these actions, a decimal string: each final transaction's gasUsed split among the items it carried in proportion to their planned gas.",
  })
  gas: string;

  @ApiProperty({
    example: "24370350000000000",
    pattern: "^[0-9]+$",
    description: "Fee paid in wei, a decimal string (it can exceed 2^53): each item's gas × its transaction's effectiveGasPrice.",
  })
  feeWei: string;
}

export class UsageLineDto extends UsageCountsDto {
  @ApiProperty({ enum: USAGE_KINDS, example: "sold", description: "The action kind (the callbacks' action name)." })
  kind: UsageKind;
}

@ApiExtraModels(UsageLineDto)
export class UsageGroupDto {
  @ApiPropertyOptional({ example: "2026-03-01", description: "With groupBy=day: the UTC day (YYYY-MM-DD)." })
  day?: string;

  @ApiPropertyOptional({ example: "0f8fad5b-d9cb-469f-a165-70867728950e", description: "With groupBy=event: the eventId." })
  eventId?: string;

  @ApiProperty({ type: [UsageLineDto], description: "One line per action kind with anything to count in the group, in the callbacks' kind order." })
  actions: UsageLineDto[];

  @ApiProperty({ type: UsageCountsDto, description: "The group's lines summed (transactions: the distinct ones of the group)." })
  totals: UsageCountsDto;
}

/** An organization's usage statement over a range. */
@ApiExtraModels(UsageGroupDto, UsageCountsDto)
export class UsageStatementDto {
  @ApiProperty({ example: "ticketeer-42", description: "The organization the statement is of (the API key's)." })
  ticketeerId: string;

  @ApiProperty({ format: "date-time", example: "2026-03-01T00:00:00.000Z", description: "The range's start, included." })
  from: string;

  @ApiProperty({
    format: "date-time",
    example: "2026-04-01T00:00:00.000Z",
    description: "The range's end, excluded (a `to` given as a date is the end of that day).",
  })
  to: string;

  @ApiProperty({ enum: USAGE_GROUPINGS, example: "day" })
  groupBy: UsageGrouping;

  @ApiProperty({ type: [UsageGroupDto], description: "The groups with anything to count, days in order or events by eventId; none when nothing happened." })
  groups: UsageGroupDto[];

  @ApiProperty({ type: UsageCountsDto, description: "The whole range summed." })
  totals: UsageCountsDto;
}
