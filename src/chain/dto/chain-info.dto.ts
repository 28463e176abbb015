import { ApiProperty } from "@nestjs/swagger";

/** Where the registry lives, so an integrator can verify tickets with any client. */
export class ChainInfoDto {
  @ApiProperty({ type: Number, nullable: true, example: 80002 })
  chainId: number | null;

  @ApiProperty({ type: String, nullable: true, example: "0x5FbDB2315678afecb367f032d93F642f64180aa3" })
  registryAddress: string | null;

  @ApiProperty({
    oneOf: [
      { type: "integer", minimum: 1 },
      { type: "string", enum: ["finalized"] },
    ],
    example: 1,
    description:
      'When an action counts as confirmed: a number of blocks (counting the one that mined it), or "finalized": once its block is finalized by the chain.',
  })
  confirmations: number | "finalized";

  @ApiProperty({ type: String, nullable: true, required: false, description: "JSON-RPC URL; only in the embedded development mode." })
  rpcUrl?: string | null;
}
