/**
 * What `cdk synth` did, in a few lines on stderr: the CLI's --quiet hides the template, and a
 * platform team wants to know which stack, which cache (how the functions authenticate to it,
 * what makes a write durable there) and which files it got.
 */
import { relative } from 'node:path';
import { AssetManifestArtifact, type CloudAssembly } from 'aws-cdk-lib/cx-api';
import { moduleOf } from '../cache/modules.js';
import type { EchoMqAppStack } from './app-stack.js';

export function synthSummary(assembly: CloudAssembly, stack: EchoMqAppStack): string {
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
  const { deployment } = stack;
  const { cache } = deployment;
  const { cacheAuth, durability } = moduleOf(cache).describe(cache);
  return [
    `echomq-lambda: synthesized stack ${stack.stackName} (cache=${cache.kind}, cacheAuth=${cacheAuth}, durability=${durability}, family ${stack.echoMq.cache.connectionEnvironment.EMQ_EXECUTOR}, runtime ${deployment.runtime}, auth=${deployment.http.auth.kind})`,
    `  template: ${here(artifact.templateFullPath)}`,
    `  assets (${assets.length}):`,
    ...assets,
  ].join('\n');
}
