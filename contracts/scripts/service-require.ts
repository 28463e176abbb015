/**
 * Imported first by a module that loads the service's CommonJS TypeScript beyond src/registry (see
 * registry.ts): Hardhat loads TypeScript through tsx's ES module hooks only, and a CommonJS `require`
 * of a directory (`require("../../../registry")`, as src/ writes them) does not resolve through those.
 * tsx's CommonJS hooks resolve it as the service's own loader does.
 */
import "tsx/cjs";
