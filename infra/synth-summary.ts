/**
 * What `cdk synth` did, in a few lines on stderr: the CLI's --quiet hides the template, and a
 * platform team wants to know which stack, which cache (how the functions authenticate to it,
 * what makes a write durable there) and which files it got.
 */
import { relative } from 'node:path';
import { AssetManifestArtifact, type CloudAssembly } from 'aws-cdk-lib/cx-api';
import type { ResolvedCache } from './settings.js';
import type { EchoMqStack } from './stack.js';

export function synthSummary(assembly: CloudAssembly, stack: EchoMqStack): string {
  const artifact = assembly.getStackByName(stack.stackName);
  const here = (path: string) => relative(process.cwd(), path) || '.';
  const manifests = artifact.dependencies.filter(
    (dependency): dependency is AssetManifestArtifact =>
      dependency instanceof AssetManifestArtifact,
  );
  const assets = manifests.flatMap((manifest) =>
    Object.values(manifest.contents.files ?? {}).map(
      ({ source, displayName }) =>
        `    ${displayName ?? source.packaging ?? 'file'}: ${here(`${assembly.directory}/${source.path ?? '?'}`)}`,
    ),
  );
  const { settings } = stack;
  const { cache } = settings;
  return [
    `echomq-lambda: synthesized stack ${stack.stackName} (cache=${cache.kind}, cacheAuth=${cacheAuthOf(cache)}, durability=${durabilityOf(cache)}, executor ${stack.cache.connectionEnvironment.EMQ_EXECUTOR}, runtime ${settings.runtime}, auth=${settings.http.auth.kind})`,
    `  template: ${here(artifact.templateFullPath)}`,
    `  assets (${assets.length}):`,
    ...assets,
  ].join('\n');
}

/** How the functions authenticate to the cache: `-c cacheAuth`, or what the kind allows. */
function cacheAuthOf(cache: ResolvedCache): string {
  if (cache.kind === 'elasticache' || cache.kind === 'serverless') return cache.cacheAuth;
  if (cache.kind === 'existing') return cache.secretArn === undefined ? 'none' : 'password';
  return 'password';
}

/**
 * What keeps an acknowledged write: ElastiCache's log mode; `none` on Serverless (AWS offers
 * no durability there); the self-managed nodes' AOF; `server` where the stack cannot see it.
 */
function durabilityOf(cache: ResolvedCache): string {
  switch (cache.kind) {
    case 'elasticache':
      return cache.durability;
    case 'serverless':
      return 'none';
    case 'selfmanaged':
      return 'aof-everysec';
    case 'existing':
      return 'server';
  }
}
