import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { HOST_MODULE } from '../../module/artifacts.js';
import type { ModuleOption } from './types.js';

export const MODULE_PATH = fileURLToPath(new URL(`../../${HOST_MODULE}`, import.meta.url));
const DEFAULT_WIRE = '1';

/** The `--loadmodule` arguments for the option, checked before any server is spawned. */
export function moduleArgs(option: ModuleOption, path: string = MODULE_PATH): string[] {
  if (option === false) return [];
  const wire = (option === true ? undefined : option.wire) ?? DEFAULT_WIRE;
  if (!existsSync(path)) {
    throw new Error(
      `The emq module is not built (${path} is missing): run \`npm run build:module\` first.`,
    );
  }
  return ['--loadmodule', path, 'wire', wire];
}
