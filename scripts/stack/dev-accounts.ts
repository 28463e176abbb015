import { HDNodeWallet, Mnemonic } from "ethers";

/** The mnemonic both Hardhat's node and Anvil derive their 20 funded (10,000 ETH) development accounts from. */
const DEV_MNEMONIC = "test test test test test test test test test test test junk";

/**
 * The keys of development accounts #0 to #count-1: throwaway keys that only a local chain knows. #0
 * deploys and administers the registry; the others sign.
 */
export function devAccountKeys(count: number): string[] {
  // The seed is derived once (2,048 rounds of PBKDF2), each account from the common parent.
  const parent = HDNodeWallet.fromMnemonic(Mnemonic.fromPhrase(DEV_MNEMONIC), "m/44'/60'/0'/0");
  return Array.from({ length: count }, (_, index) => parent.deriveChild(index).privateKey);
}

/** Development account #1: the signer of `npm start`'s playground and the benchmarks' first. */
export const EMBEDDED_SIGNER_KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";
