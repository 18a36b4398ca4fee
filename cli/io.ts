/**
 * The CLI's streams, passed in rather than reached for, so the whole program can run
 * in-process in unit tests and as the `emq` bin alike.
 */
export interface Io {
  /** Writes to standard output. */
  readonly out: (text: string | Uint8Array) => void;
  /** Writes to standard error. */
  readonly err: (text: string) => void;
  /** Reads standard input to its end. */
  readonly readStdin: () => Promise<Buffer>;
  /** True when standard input is a terminal, where waiting for a payload would look like a hang. */
  readonly stdinIsTerminal: boolean;
  /** The environment the EMQ_* settings are read from. */
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** The real process streams and environment. */
export function processIo(): Io {
  return {
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
    readStdin: async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) {
        chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
      }
      return Buffer.concat(chunks);
    },
    stdinIsTerminal: process.stdin.isTTY === true,
    env: process.env,
  };
}
