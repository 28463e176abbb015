import { Controller, Get } from "@nestjs/common";
import { ApiOkResponse, ApiOperation, ApiTags } from "@nestjs/swagger";

import { ApiCommonReadResponses } from "../common/http/api-responses";
import type { AppConfig } from "../config/app-config";
import { InjectConfig } from "../config/config.module";
import { ChainInfoDto } from "./dto/chain-info.dto";

@ApiTags("chain")
@Controller("api/v1/chain")
export class ChainController {
  constructor(@InjectConfig() private readonly config: AppConfig) {}

  @Get()
  @ApiOperation({ summary: "The chain and registry contract that mirror the tickets" })
  @ApiOkResponse({ type: ChainInfoDto })
  @ApiCommonReadResponses()
  info(): ChainInfoDto {
    const { chain, app } = this.config;
    const info: ChainInfoDto = { chainId: chain.chainId, registryAddress: chain.registryAddress, confirmations: chain.confirmations };
    if (app.mode === "development") info.rpcUrl = chain.rpcUrl;
    return info;
  }
}
