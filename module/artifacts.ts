/**
 * Where the module's build puts its artifacts, relative to the project folder: the one
 * place these paths are spelled. `make -C module` builds both; `npm run build:module` the
 * host one. Tests, the bench, the local stack and the self-managed stack import from here.
 */
import { join } from 'node:path';

/** The module built for this machine (tests, bench, `npm start`). */
export const HOST_MODULE = join('module', 'build', 'emq.so');

/** The module built for Graviton (arm64) nodes: the self-managed stack's default artifact. */
export const ARM64_MODULE = join('module', 'build', 'emq-arm64.so');
