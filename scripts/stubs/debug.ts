/**
 * Stands in for the `debug` package inside the bundles. iovalkey traces commands through it
 * when DEBUG=ioredis:* is set, arguments included: in a Lambda that would print payloads and
 * AUTH passwords to CloudWatch. The stub keeps that door shut and the bundle 8 KB smaller.
 */
interface Debugger {
  (...args: unknown[]): void;
  enabled: boolean;
}

export default function debug(): Debugger {
  return Object.assign(() => {}, { enabled: false });
}
