/**
 * Certificates made at test time with openssl, in a temp dir removed afterwards: a CA, a
 * server certificate it signs for 127.0.0.1 and localhost, and an unrelated CA that a client
 * must not accept the server under.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface TestCertificates {
  readonly dir: string;
  /** PEM files for the server's --tls-* options. */
  readonly caFile: string;
  readonly certFile: string;
  readonly keyFile: string;
  /** The CA that signed the server's certificate, PEM. */
  readonly ca: Buffer;
  /** A CA that signed nothing the server holds, PEM. */
  readonly otherCa: Buffer;
  remove(): Promise<void>;
}

/** EC keys: quick to make, and what a modern deployment uses. */
const KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

async function openssl(dir: string, args: readonly string[]): Promise<void> {
  await run('openssl', [...args], { cwd: dir, timeout: 30_000 });
}

export async function makeCertificates(): Promise<TestCertificates> {
  const dir = await mkdtemp(join(tmpdir(), 'emq-tls-'));
  try {
    for (const name of ['ca', 'other-ca']) {
      await openssl(dir, [
        'req',
        '-x509',
        ...KEY,
        '-keyout',
        `${name}.key`,
        '-out',
        `${name}.crt`,
        '-days',
        '2',
        '-subj',
        `/CN=echomq test ${name}`,
      ]);
    }
    await writeFile(join(dir, 'server.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
    await openssl(dir, [
      'req',
      ...KEY,
      '-keyout',
      'server.key',
      '-out',
      'server.csr',
      '-subj',
      '/CN=localhost',
    ]);
    await openssl(dir, [
      'x509',
      '-req',
      '-in',
      'server.csr',
      '-CA',
      'ca.crt',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      'server.crt',
      '-days',
      '2',
      '-extfile',
      'server.ext',
    ]);
    return {
      dir,
      caFile: join(dir, 'ca.crt'),
      certFile: join(dir, 'server.crt'),
      keyFile: join(dir, 'server.key'),
      ca: await readFile(join(dir, 'ca.crt')),
      otherCa: await readFile(join(dir, 'other-ca.crt')),
      remove: () => rm(dir, { recursive: true, force: true }),
    };
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}
