import { Controller, Get } from "@nestjs/common";
import { ApiOkResponse, ApiOperation, ApiTags } from "@nestjs/swagger";

import { ApiCommonReadResponses } from "../common/http/api-responses";
import type { AppConfig } from "../config/app-config";
import { InjectConfig } from "../config/config.module";
import { ChainClient } from "./chain-client";
import { ChainInfoDto } from "./dto/chain-info.dto";

@ApiTags("chain")
@Controller("api/v1/chain")
export class ChainController {
  constructor(
    @InjectConfig() private readonly config: AppConfig,
    private readonly chain: ChainClient,
  ) {}

  @Get()
  @ApiOperation({ operationId: "getChainInfo", summary: "The chain and registry contract that mirror the tickets" })
  @ApiOkResponse({ type: ChainInfoDto })
  @ApiCommonReadResponses()
  async info(): Promise<ChainInfoDto> {
    const { chain } = this.config;
    const chainId = this.chain.configured ? await this.chain.chainId().then(Number, () => null) : null;
    const info: ChainInfoDto = { chainId, registryAddress: chain.registryAddress, confirmations: chain.confirmations };
    if (chain.embedded) info.rpcUrl = chain.rpcUrl;
    return info;
  }
}
