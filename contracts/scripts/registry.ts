/**
 * The service's registry encoding (src/registry) for this workspace's ES modules. src/ is CommonJS: an
 * ES module sees the named exports of a CommonJS module that defines them, but not those it passes on
 * with `export *`, as src/registry/index.ts does. So this lists the files that define them.
 */
export * from "../../src/registry/registry-batch.js";
export * from "../../src/registry/registry-batch-items.js";
export * from "../../src/registry/registry-coordinates.js";
export * from "../../src/registry/registry-custody.js";
export * from "../../src/registry/registry-failures.js";
export * from "../../src/registry/registry-ids.js";
export * from "../../src/registry/registry-item-json.js";
export * from "../../src/registry/registry-price.js";
