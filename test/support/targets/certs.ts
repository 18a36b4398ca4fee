/**
 * One private CA and one server certificate (for 127.0.0.1 and localhost) per test process,
 * shared by every TLS target: made once with openssl (test/security/tls-certs.ts), removed
 * when the process exits. Every target is a private-CA target here, as a self-managed
 * cluster is in production; ElastiCache's Amazon-signed certificates have no local stand-in.
 */
import { rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { makeCertificates, type TestCertificates } from '../../security/tls-certs.js';

export interface TargetCertificates extends TestCertificates {
  /** The server certificate and key, PEM (what a proxy terminates TLS with). */
  readonly cert: Buffer;
  readonly key: Buffer;
}

let made: Promise<TargetCertificates> | undefined;

export function targetCertificates(): Promise<TargetCertificates> {
  made ??= make();
  return made;
}

async function make(): Promise<TargetCertificates> {
  const certificates = await makeCertificates();
  process.once('exit', () => rmSync(certificates.dir, { recursive: true, force: true }));
  return {
    ...certificates,
    cert: await readFile(certificates.certFile),
    key: await readFile(certificates.keyFile),
  };
}
