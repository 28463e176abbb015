import { Injectable } from "@nestjs/common";

import { TicketRegistry__factory } from "../../typechain-types";
import { ChainClient } from "../chain/chain-client";
import type { AppConfig } from "../config/app-config";
import { InjectConfig } from "../config/config.module";
import type { CollectionMetadataDto } from "./dto/token-metadata.dto";

/** The collection's metadata that a registry's contractURI points at: its name and symbol from the chain (read once: they never change), the rest configured. */
@Injectable()
export class CollectionService {
  private names: Promise<{ name: string; symbol: string }> | null = null;

  constructor(
    private readonly chain: ChainClient,
    @InjectConfig() private readonly config: AppConfig,
  ) {}

  async metadata(publicBaseUrl: string): Promise<CollectionMetadataDto> {
    const { name, symbol } = await this.namesOnChain();
    const { description, imageUrl, externalLink } = this.config.tokenMetadata.collection;
    return { name, symbol, description, ...(imageUrl ? { image: imageUrl } : {}), external_link: externalLink ?? publicBaseUrl };
  }

  private namesOnChain(): Promise<{ name: string; symbol: string }> {
    this.names ??= this.readNames().catch((error: unknown) => {
      this.names = null;
      throw error;
    });
    return this.names;
  }

  private async readNames(): Promise<{ name: string; symbol: string }> {
    const registry = TicketRegistry__factory.connect(this.chain.registryAddress, await this.chain.connect());
    const [name, symbol] = await Promise.all([registry.name(), registry.symbol()]);
    return { name, symbol };
  }
}
