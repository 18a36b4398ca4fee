// A package upgrade reinstalls: CloudFormation sends the fence resource an Update only when its
// properties change, so the installer's bundle (which inlines the library) is one of them. A
// new fence bundle is an Update; the same bundles are none.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FENCE_RESOURCE_TYPE } from '../../infra/constructs/fence-installer.js';
import { standInBundles, synthStack } from './support/synth.js';
import { onlyResource } from './support/template.js';

function fenceProperties(bundleDir: string): Record<string, unknown> {
  const { template } = synthStack({ bundleDir });
  const [, fence] = onlyResource(template, FENCE_RESOURCE_TYPE);
  return fence.Properties as Record<string, unknown>;
}

describe('the fence resource across package versions', () => {
  it('changes with the installer bundle, and only with it', () => {
    const bundles = standInBundles();
    const before = fenceProperties(bundles);
    expect(fenceProperties(bundles)).toEqual(before);
    writeFileSync(
      join(bundles, 'fence', 'index.mjs'),
      "const VERSION = 'next'; export const handler = async () => ({});\n",
    );
    const after = fenceProperties(bundles);
    expect(after.Installer).not.toBe(before.Installer);
    expect({ ...after, Installer: before.Installer }).toEqual(before);
  });
});
