import { ApiProperty } from "@nestjs/swagger";

import { CHAIN_ACTION_KINDS, CHAIN_ACTION_STATUSES, type ChainActionKind, type ChainActionStatus } from "../chain-action-kind";
import type { ChainAction } from "../entities/chain-action.entity";

export class ActionErrorDto {
  @ApiProperty({ example: "ticket_checked_in" })
  code: string;

  @ApiProperty()
  message: string;
}

/** An accepted action and where it stands on its way to the chain. */
export class ActionViewDto {
  @ApiProperty({ format: "uuid", description: "The txPromise / actionPromise of the action." })
  actionPromise: string;

  @ApiProperty({ enum: CHAIN_ACTION_KINDS, description: "What the action does; the callback's action name." })
  action: ChainActionKind;

  @ApiProperty({ example: "soldTicket", description: "The endpoint or stream action it was sent as." })
  requestedAs: string;

  @ApiProperty({
    enum: CHAIN_ACTION_STATUSES,
    description:
      "waiting_broadcast: accepted, queued for the chain; pending: in a broadcast transaction (txHash known); confirmed: enough confirmations; error: failed on chain (see error); no_broadcast_required: nothing of it goes on chain.",
  })
  status: ChainActionStatus;

  @ApiProperty({ type: String, nullable: true, example: null })
  txHash: string | null;

  @ApiProperty({ type: Number, nullable: true, example: null })
  blockNumber: number | null;

  @ApiProperty({
    type: String,
    nullable: true,
    example: null,
    description: "Hash of the block that confirmed the action (with txHash and blockNumber, checkable against any node); null until confirmed.",
  })
  blockHash: string | null;

  @ApiProperty({ type: ActionErrorDto, nullable: true })
  error: ActionErrorDto | null;

  @ApiProperty({ format: "date-time" })
  acceptedAt: string;

  @ApiProperty({ format: "date-time" })
  updatedAt: string;
}

export function toActionView(action: ChainAction): ActionViewDto {
  return {
    actionPromise: action.id,
    action: action.kind,
    requestedAs: action.requestedAs,
    status: action.status,
    txHash: action.txHash,
    blockNumber: action.blockNumber === null ? null : Number(action.blockNumber),
    blockHash: action.blockHash,
    error: action.errorCode === null ? null : { code: action.errorCode, message: action.errorMessage ?? "" },
    acceptedAt: action.createdAt.toISOString(),
    updatedAt: action.updatedAt.toISOString(),
  };
}
