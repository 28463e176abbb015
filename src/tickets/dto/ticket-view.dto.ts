import { ApiProperty } from "@nestjs/swagger";

import { ActionViewDto } from "../../ledger/dto/action-view.dto";

export class TicketChainViewDto {
  @ApiProperty({ example: "18446744073709551617", description: "ERC-721 tokenId (eventIndex << 64 | serial), decimal. Known at acceptance." })
  tokenId: string;

  @ApiProperty({ example: 1 })
  eventIndex: number | string;

  @ApiProperty({ example: 1 })
  serial: number | string;

  @ApiProperty({ description: "The sale is confirmed on chain." })
  minted: boolean;

  @ApiProperty({ description: "A check-in is confirmed on chain." })
  checkedIn: boolean;

  @ApiProperty({ description: "The invalidation is confirmed on chain." })
  invalidated: boolean;

  @ApiProperty({ description: "The claim is confirmed on chain." })
  claimed: boolean;
}

/** A ticket: its accepted state, what the chain confirmed, and its actions in order. */
export class TicketViewDto {
  @ApiProperty()
  ticketId: string;

  @ApiProperty()
  eventId: string;

  @ApiProperty({ enum: ["valid", "checked_in", "invalidated", "claimed"], description: "Accepted state." })
  state: "valid" | "checked_in" | "invalidated" | "claimed";

  @ApiProperty()
  checkedIn: boolean;

  @ApiProperty()
  invalidated: boolean;

  @ApiProperty()
  claimed: boolean;

  @ApiProperty({ type: String, nullable: true, description: "Wallet the ticket was claimed to." })
  claimedTo: string | null;

  @ApiProperty({ description: "Accepted resales." })
  resales: number;

  @ApiProperty({ example: "49.95", description: "Price of the latest sale or resale." })
  price: string;

  @ApiProperty()
  uri: string;

  @ApiProperty({ description: "orderTime of the latest sale or resale (Unix seconds)." })
  orderTime: number | string;

  @ApiProperty({ type: TicketChainViewDto })
  chain: TicketChainViewDto;

  @ApiProperty({ type: [ActionViewDto] })
  actions: ActionViewDto[];
}
