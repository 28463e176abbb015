import { ApiProperty } from "@nestjs/swagger";
import { IsDefined } from "class-validator";

import { IsWalletAddress } from "../../common/validation/field-decorators";
import { TicketIdField } from "./ticket-fields";

/** `claimedTicket` stream data: withdraw a checked-in ticket to the holder's wallet. */
export class ClaimedTicketDto {
  @TicketIdField()
  ticketId: string;

  @ApiProperty({
    example: "0x52908400098527886E0F7030069857D2E4169EE7",
    description:
      "The holder's wallet address; mixed case must carry a valid EIP-55 checksum. Not a precompile (0x…01 to 0x…ff), the burn address 0x…dEaD, the registry, one of its custodial addresses or one of the service's signers: those are refused with invalid_field.",
  })
  @IsDefined()
  @IsWalletAddress()
  to: string;
}
