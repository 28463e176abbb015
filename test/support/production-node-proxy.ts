/** The tests name it from here; it lives in the stack library, which the benchmarks share. */
export * from "../../scripts/stack/production-node-proxy";
