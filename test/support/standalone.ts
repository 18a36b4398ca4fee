import { ValkeyServer } from './server.js';
import { launchSpec } from './server-args.js';
import type { ServerHandle, ServerOptions } from './types.js';

export function startStandalone(options: ServerOptions = {}): Promise<ServerHandle> {
  return ValkeyServer.start(launchSpec(options));
}
