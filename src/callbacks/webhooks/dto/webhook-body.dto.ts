import { ApiProperty, ApiPropertyOptional } from "@nestjs/swagger";
import { IsBoolean, IsOptional, IsString } from "class-validator";

import { IsCallbackUrl, MaxText, rule } from "../../../common/validation/field-decorators";
import { actionsProblem, WEBHOOK_ACTIONS } from "../webhook-actions";

const IsWebhookActions = () =>
  rule(
    "isWebhookActions",
    (value) => actionsProblem(value) === null,
    (args) => `${args.property}${spaced(actionsProblem(args.value))}`,
  );

/** "[1] …" follows the field's name directly (actions[1]), anything else after a space. */
function spaced(problem: string | null): string {
  return problem?.startsWith("[") ? problem : ` ${problem}`;
}

const URL_DOC = {
  maxLength: 255,
  example: "https://integrator.example.com/registry-webhooks",
  description:
    "https URL that receives the callbacks, with the rules of an event's callbackUrl: no user information, no IPv6 zone id, no localhost, " +
    "no IP address that is not public unicast (docs: Callbacks, Targets).",
};
const ACTIONS_DOC = {
  enum: [...WEBHOOK_ACTIONS],
  isArray: true,
  nullable: true,
  example: ["scanned", "transferred"],
  description: "The callback actions the endpoint takes (endpoint_disabled and callback_exhausted are notices of their own). Absent or null: all of them.",
};
const DESCRIPTION_DOC = { maxLength: 255, example: "Door scanning dashboard", description: "Yours, for telling endpoints apart; blank by default." };

/** POST /api/v1/webhooks. */
export class CreateWebhookDto {
  @ApiProperty(URL_DOC)
  @IsCallbackUrl()
  url: string;

  @ApiPropertyOptional(ACTIONS_DOC)
  @IsOptional()
  @IsWebhookActions()
  actions?: string[] | null;

  @ApiPropertyOptional(DESCRIPTION_DOC)
  @IsOptional()
  @IsString()
  @MaxText()
  description?: string;
}

/** PATCH /api/v1/webhooks/{webhookId}: the fields to change, at least one. */
export class UpdateWebhookDto {
  @ApiPropertyOptional(URL_DOC)
  @IsOptional()
  @IsCallbackUrl()
  url?: string;

  @ApiPropertyOptional({ ...ACTIONS_DOC, description: "The callback actions the endpoint takes; null: all of them." })
  @IsOptional()
  @IsWebhookActions()
  actions?: string[] | null;

  @ApiPropertyOptional(DESCRIPTION_DOC)
  @IsOptional()
  @IsString()
  @MaxText()
  description?: string;

  @ApiPropertyOptional({
    description:
      "false stops the endpoint's callbacks (kept, not attempted); true enables it again, also after the service disabled it for failing, " +
      "and forgets its failures. Callbacks it missed meanwhile are redelivered on request (POST /api/v1/callbacks/redeliver with its webhookId).",
  })
  @IsOptional()
  @IsBoolean()
  enabled?: boolean;
}
