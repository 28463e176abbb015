export * from "./registry-batch";
export * from "./registry-coordinates";
export * from "./registry-ids";
export * from "./registry-price";
export * from "./registry-failures";
export * from "./registry-item-json";
export * from "./registry-custody";
export * from "./registry-batch-items";
