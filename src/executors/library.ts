/**
 * The `emq` function library (SPEC §4): its name, its source text and its version. The
 * version is read from the source, so the text the installer loads and the version the
 * connector expects can never disagree.
 */
import source from './emq.lua';

export const LIBRARY_NAME = 'emq';

/** The library's Lua source, as FUNCTION LOAD takes it. */
export const LIBRARY_SOURCE: string = source;

function versionOf(text: string): string {
  const found = /^local VERSION = '([^']+)'$/m.exec(text);
  if (found?.[1] === undefined) throw new Error('emq.lua declares no VERSION');
  return found[1];
}

/** What `FCALL_RO emq_version 0` answers where this library is loaded. */
export const LIBRARY_VERSION: string = versionOf(source);
