import { ApiExtraModels, ApiProperty } from "@nestjs/swagger";

import { nullableRef } from "../../common/http/openapi-schemas";
import { ACTION_ERROR_CODES } from "../../registry";

import { CHAIN_ACTION_KINDS, CHAIN_ACTION_STATUSES, type ChainActionKind, type ChainActionStatus } from "../chain-action-kind";
import type { ChainAction } from "../entities/chain-action.entity";

/** A transferred action's move: the wallet the token left and the one it went to. */
export class TransferDto {
  @ApiProperty({ example: "0x52908400098527886E0F7030069857D2E4169EE7" })
  from: string;

  @ApiProperty({ example: "0x8ba1f109551bD432803012645Ac136ddd64DBA72" })
  to: string;
}

export class ActionErrorDto {
  @ApiProperty({
    enum: ACTION_ERROR_CODES,
    example: "onchain_ticket_checked_in",
    description:
      "Why the action failed: the registry refused the item (onchain_ticket_checked_in, ...; onchain_refused for a reason this version does not name), the transaction kept reverting (onchain_reverted), or the item cannot be written (onchain_unencodable, onchain_item_too_large).",
  })
  code: string;

  @ApiProperty()
  message: string;
}

/** An accepted action and where it stands on its way to the chain; or a transfer the chain recorded. */
@ApiExtraModels(ActionErrorDto, TransferDto)
export class ActionViewDto {
  @ApiProperty({ format: "uuid", description: "The txPromise / actionPromise of the action." })
  actionPromise: string;

  @ApiProperty({
    enum: CHAIN_ACTION_KINDS,
    description:
      "What the action does; the callback's action name. transferred: the token, claimed to a wallet, moved to another wallet on chain (found in the registry's Transfer logs, not requested).",
  })
  action: ChainActionKind;

  @ApiProperty({ example: "soldTicket", description: "The endpoint or stream action it was sent as; chain for a transferred action, which nobody requested." })
  requestedAs: string;

  @ApiProperty({
    enum: CHAIN_ACTION_STATUSES,
    description:
      "waiting_broadcast: accepted, queued for the chain; waiting_funds: queued, but the signer that sends it cannot pay for a transaction now (short of funds, or fees above the operator's cap); it moves on by itself once funded or fees drop; pending: in a broadcast transaction (txHash known); confirmed: enough confirmations; error: failed on chain (see error); no_broadcast_required: nothing of it goes on chain (an updateEvent that changes only its callbackUrl; every other action, updateTicket included, goes on chain); cancelled: withdrawn before it was signed (POST /api/v1/actions/{promise}/cancel), final, nothing of it on chain and no callback.",
  })
  status: ChainActionStatus;

  @ApiProperty({ type: String, nullable: true, example: null })
  txHash: string | null;

  @ApiProperty({ type: "integer", nullable: true, example: null })
  blockNumber: number | null;

  @ApiProperty({
    type: String,
    nullable: true,
    example: null,
    description: "Hash of the block that confirmed the action (with txHash and blockNumber, checkable against any node); null until confirmed.",
  })
  blockHash: string | null;

  @ApiProperty({ ...nullableRef(ActionErrorDto), description: "Why the action failed on chain; null unless status is error." })
  error: ActionErrorDto | null;

  @ApiProperty({ ...nullableRef(TransferDto), description: "For a transferred action, the wallets the token moved between; null for every other action." })
  transfer: TransferDto | null;

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
    transfer: transferOf(action),
    acceptedAt: action.createdAt.toISOString(),
    updatedAt: action.updatedAt.toISOString(),
  };
}

/** The from and to a transferred action keeps in its payload; null for any other action. */
export function transferOf(action: Pick<ChainAction, "kind" | "payload">): TransferDto | null {
  if (action.kind !== "transferred" || !action.payload) return null;
  return { from: String(action.payload.from), to: String(action.payload.to) };
}
