/**
 * The executor the functions run where the server loads no module (ElastiCache, Serverless):
 * the `emq` Valkey Functions library (the script executor is retired, and refused by
 * src/config.ts).
 */
export const MODULELESS_EXECUTOR = 'function';
export type ModulelessExecutor = typeof MODULELESS_EXECUTOR;
