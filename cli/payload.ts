/** Payloads as the CLI reads and shows them: bytes in, text out where the bytes are text. */
import { isUtf8 } from 'node:buffer';
import { CliFailure, EXIT_USAGE } from './failures.js';
import type { Io } from './io.js';

/** A payload in a JSON answer, as the HTTP face's GET shows it: UTF-8 text as is, else base64. */
export interface ShownPayload {
  readonly payload: string;
  readonly encoding: 'utf8' | 'base64';
}

export function showPayload(bytes: Buffer): ShownPayload {
  return isUtf8(bytes)
    ? { payload: bytes.toString('utf8'), encoding: 'utf8' }
    : { payload: bytes.toString('base64'), encoding: 'base64' };
}

/**
 * The payload argument: the text itself, or `-` for the bytes of stdin. Left out, stdin is
 * read too, unless it is a terminal: then the operator forgot the payload.
 */
export async function readPayload(io: Io, argument: string | undefined): Promise<Buffer> {
  if (argument !== undefined && argument !== '-') return Buffer.from(argument, 'utf8');
  if (argument === undefined && io.stdinIsTerminal) {
    throw new CliFailure(
      'EMQ_USAGE',
      'No payload: give it as an argument, pipe it in, or pass - to type it on stdin.',
      EXIT_USAGE,
    );
  }
  return io.readStdin();
}
