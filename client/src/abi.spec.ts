import { readFileSync } from "node:fs";

import { describe, expect, it } from "vitest";

import { ABI_PATH, generateAbi } from "../generate";
import { ticketRegistryAbi } from "./abi.js";

describe("the registry ABI the client exports", () => {
  it("is the committed ABI (else run `npm run client`)", () => {
    expect(readFileSync(ABI_PATH, "utf8").split("\n"), "client/src/abi.ts is stale: run `npm run client` and commit it").toEqual(generateAbi().split("\n"));
  });

  it("names the ERC-721 reads a wallet makes", () => {
    const functions = ticketRegistryAbi.flatMap((entry) => (entry.type === "function" ? [entry.name] : []));
    expect(functions).toEqual(expect.arrayContaining(["ownerOf", "balanceOf", "tokenURI", "supportsInterface", "contractURI"]));
  });
});
