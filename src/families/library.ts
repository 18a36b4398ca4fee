/**
 * The `emq` library (docs/wire.md, "The calls"): its source text, its version, and the same text as
 * a script for EVALSHA. The version is read from the source, so the text the installer loads and
 * the version the connector expects can never disagree.
 */
import { createHash } from 'node:crypto';
import source from './emq.lua';

/** The library's Lua source, as FUNCTION LOAD takes it. */
export const LIBRARY_SOURCE: string = source;

function versionOf(text: string): string {
  const found = /^local VERSION = '([^']+)'$/m.exec(text);
  if (found?.[1] === undefined) throw new Error('emq.lua declares no VERSION');
  return found[1];
}

/** What `emq_version` answers where this library (or its script) is loaded. */
export const LIBRARY_VERSION: string = versionOf(source);

/**
 * The script family's text: the library with its `#!lua name=emq` line blanked (EVAL takes no
 * library name, and a script without a shebang may read the fence's own slot where it is
 * local). Line numbers stay those of emq.lua, so an error's line means the same in both.
 */
export const SCRIPT_SOURCE: string = source.replace(/^#!lua name=emq$/m, '--');

/** EVALSHA's name for the script. */
export const SCRIPT_SHA: string = createHash('sha1').update(SCRIPT_SOURCE).digest('hex');
