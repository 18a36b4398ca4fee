/**
 * The executor the functions run where the server loads no module (ElastiCache, Serverless).
 * One constant, because the core renames it: `script` (enqueue-2.lua) becomes `function` (the
 * `emq` Valkey Functions library) once src/config.ts accepts that value.
 */
export const SCRIPT_EXECUTOR = 'script';
export type ModulelessExecutor = typeof SCRIPT_EXECUTOR;
