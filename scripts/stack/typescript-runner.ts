/**
 * `node` arguments that run the project's TypeScript directly: @swc-node/register compiles each file
 * as it loads, with the decorator metadata Nest's injection reads (tsconfig.json's
 * emitDecoratorMetadata). It starts the service in under half of ts-node's time, and it is maintained.
 */
export const TYPESCRIPT_RUNNER_ARGS = ["-r", "@swc-node/register"];
