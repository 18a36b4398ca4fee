/**
 * Where the module's build puts its artifacts, relative to the project folder: the one
 * place these paths are spelled. `make -C module` builds both; `npm run build:module` the
 * host one. Tests, the bench, the local stack and the self-managed stack import from here.
 */
import { join } from 'node:path';

/**
 * The module built for this machine (tests, bench, `npm start`), and the x86_64 artifact the
 * package ships: the tarball is packed on x86_64, which prepack checks.
 */
export const HOST_MODULE = join('module', 'build', 'emq.so');

/** The module built for Graviton (arm64) nodes: the self-managed stack's default artifact on Graviton instance types. */
export const ARM64_MODULE = join('module', 'build', 'emq-arm64.so');
