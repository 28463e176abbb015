import { ApiProperty } from "@nestjs/swagger";

/** Where the registry lives, so an integrator can verify tickets with any client. */
export class ChainInfoDto {
  @ApiProperty({ type: Number, nullable: true, example: 80002 })
  chainId: number | null;

  @ApiProperty({ type: String, nullable: true, example: "0x5FbDB2315678afecb367f032d93F642f64180aa3" })
  registryAddress: string | null;

  @ApiProperty({ example: 1, description: "Confirmations after which an action counts as confirmed." })
  confirmations: number;

  @ApiProperty({ type: String, nullable: true, required: false, description: "JSON-RPC URL; only in the embedded development mode." })
  rpcUrl?: string | null;
}
