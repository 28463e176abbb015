import { ApiProperty } from "@nestjs/swagger";

import { UINT64_ANSWER_SCHEMA } from "../../common/http/openapi-schemas";
import { ActionViewDto } from "../../ledger/dto/action-view.dto";
import { TicketAttributeDto } from "./ticket-metadata-fields.dto";

export class TicketChainViewDto {
  @ApiProperty({ example: "18446744073709551617", description: "ERC-721 tokenId (eventIndex << 64 | serial), decimal. Known at acceptance." })
  tokenId: string;

  @ApiProperty({ ...UINT64_ANSWER_SCHEMA, example: 1, description: "The event's index in the registry; a decimal string when above 2^53 - 1." })
  eventIndex: number | string;

  @ApiProperty({ ...UINT64_ANSWER_SCHEMA, example: 1, description: "The ticket's number within its event; a decimal string when above 2^53 - 1." })
  serial: number | string;

  @ApiProperty({ description: "The sale is confirmed on chain." })
  minted: boolean;

  @ApiProperty({ description: "A check-in is confirmed on chain." })
  checkedIn: boolean;

  @ApiProperty({ description: "The invalidation is confirmed on chain." })
  invalidated: boolean;

  @ApiProperty({ description: "The claim is confirmed on chain." })
  claimed: boolean;

  @ApiProperty({ description: "Its event's cancellation is confirmed on chain: the registry reads the ticket as cancelled." })
  eventCancelled: boolean;
}

/** A ticket: its accepted state, what the chain confirmed, and its actions in order. */
export class TicketViewDto {
  @ApiProperty()
  ticketId: string;

  @ApiProperty()
  eventId: string;

  @ApiProperty({
    enum: ["valid", "checked_in", "invalidated", "claimed", "event_cancelled"],
    description:
      "Accepted state. event_cancelled: its event is cancelled, which voids the ticket whatever it was (checkedIn, invalidated and claimed still " +
      "say what was done to it); a claimed token stays with its holder.",
  })
  state: "valid" | "checked_in" | "invalidated" | "claimed" | "event_cancelled";

  @ApiProperty()
  checkedIn: boolean;

  @ApiProperty()
  invalidated: boolean;

  @ApiProperty()
  claimed: boolean;

  @ApiProperty({ description: "Its event is cancelled (accepted): the ticket can no longer be resold, checked in, invalidated or claimed." })
  eventCancelled: boolean;

  @ApiProperty({ type: String, nullable: true, description: "Wallet the ticket was claimed to." })
  claimedTo: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    example: "0x52908400098527886E0F7030069857D2E4169EE7",
    description:
      "The token's owner on chain, as confirmed (CONFIRMATIONS): its event's custody address after the sale, a keyless holder address after " +
      "a resale, the wallet after the claim, and whoever holds it after transfers between wallets (each one a transferred action and callback). " +
      "Null until the sale is confirmed.",
  })
  holder: string | null;

  @ApiProperty({ description: "Accepted resales." })
  resales: number;

  @ApiProperty({ example: "49.95", description: "Price of the latest sale or resale." })
  price: string;

  @ApiProperty({ description: "The ticket's image as accepted (soldTicket or updateTicket); blank when it has none." })
  uri: string;

  @ApiProperty({
    description: "The token's name as the integrator gave it; blank when it gave none (the token shows the event's name and the ticket's number).",
  })
  name: string;

  @ApiProperty({ description: "The token's description as the integrator gave it; blank when it gave none." })
  description: string;

  @ApiProperty({ description: "The token's animation (OpenSea's animation_url) as the integrator gave it; blank when it gave none." })
  animationUrl: string;

  @ApiProperty({
    type: [TicketAttributeDto],
    description: "The integrator's attributes in its order, as accepted; empty when it gave none. The token shows them after the chain's traits.",
  })
  attributes: TicketAttributeDto[];

  @ApiProperty({ ...UINT64_ANSWER_SCHEMA, description: "orderTime of the latest sale or resale (Unix seconds); a decimal string when above 2^53 - 1." })
  orderTime: number | string;

  @ApiProperty({ type: TicketChainViewDto })
  chain: TicketChainViewDto;

  @ApiProperty({ type: [ActionViewDto] })
  actions: ActionViewDto[];
}

/** A page of tickets: at most `limit` (100), in tokenId order. */
export class TicketPageDto {
  @ApiProperty({ type: [TicketViewDto] })
  data: TicketViewDto[];

  @ApiProperty({ type: String, nullable: true, description: "Pass it as cursor for the next page; null on the last page." })
  nextCursor: string | null;
}
