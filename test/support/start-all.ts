import { type LaunchSpec, ValkeyServer } from './server.js';

/** Starts the servers side by side; if one fails, the others are stopped before it throws. */
export async function startAll(specs: readonly LaunchSpec[]): Promise<ValkeyServer[]> {
  const results = await Promise.allSettled(specs.map((spec) => ValkeyServer.start(spec)));
  const servers = results.flatMap((result) =>
    result.status === 'fulfilled' ? [result.value] : [],
  );
  const failure = results.find((result) => result.status === 'rejected');
  if (failure === undefined) return servers;
  await Promise.allSettled(servers.map((server) => server.stop()));
  throw failure.reason;
}
