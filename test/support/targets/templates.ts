/**
 * The synthesized default stack of each cache kind, once per test process (synthesis takes
 * seconds): what stack-settings.ts reads a profile's values from and deployed.ts reads the
 * functions' environments and users from. The self-managed stack gets the host build of the
 * module as its artifact; the existing kind a stand-in endpoint and secret (EMQ_URL and the
 * secret's answer are the local target's anyway).
 */
import type { Template } from 'aws-cdk-lib/assertions';
import type { CacheSpec } from '../../../infra/cache/modules.js';
import type { CacheKind } from '../../../infra/cache/registry.js';
import { synthStack } from '../../infra/support/synth.js';
import { MODULE_PATH } from '../module.js';

/** The existing kind's secret, as an operator would name it; the stand-in answers it. */
export const EXISTING_SECRET_ARN =
  'arn:aws:secretsmanager:eu-west-1:123456789012:secret:ExistingSecret-AbCdEf';

const DEFAULTS: Readonly<Record<CacheKind, CacheSpec>> = {
  elasticache: { kind: 'elasticache' },
  serverless: { kind: 'serverless' },
  existing: {
    kind: 'existing',
    urls: ['rediss://existing.invalid:6379'],
    secretArn: EXISTING_SECRET_ARN,
  },
  selfmanaged: { kind: 'selfmanaged', moduleArtifact: MODULE_PATH },
  memorydb: { kind: 'memorydb' },
};
const templates = new Map<CacheKind, Template>();

export function stackTemplate(kind: CacheKind): Template {
  let template = templates.get(kind);
  if (template === undefined) {
    template = synthStack({ cache: DEFAULTS[kind] }).template;
    templates.set(kind, template);
  }
  return template;
}
