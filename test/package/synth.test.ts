// CDK apps as a platform team writes them, installed beside the newest aws-cdk-lib and
// constructs the peer ranges admit and cdk-nag: the repository's examples compile strictly
// against the shipped declarations and synthesize with cdk-nag's AwsSolutions and Serverless
// packs (a finding fails the synthesis), every cache kind included, selfManaged uploading the
// module build the package ships for its nodes' CPU.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { moduleArchitecture } from '../../infra/cache/selfmanaged/module-artifact.js';
import { type InstalledPackage, installPackage } from '../support/package.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TSC = join(ROOT, 'node_modules', '.bin', 'tsc');
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  readonly peerDependencies: Readonly<Record<string, string>>;
};

let installed: InstalledPackage;

beforeAll(async () => {
  // The newest aws-cdk-lib may not be in npm's cache yet: its download is part of the install.
  installed = await installPackage(['cdk-nag']);
}, 300_000);

afterAll(async () => {
  await installed?.remove();
});

/** Compiles examples/<name>/app.ts in the consumer's folder, strictly, to out/app.js. */
async function compileExample(name: string): Promise<void> {
  await installed.write('app.ts', readFileSync(join(ROOT, 'examples', name, 'app.ts'), 'utf8'));
  await installed.write(
    'tsconfig.app.json',
    JSON.stringify({
      compilerOptions: {
        target: 'ES2023',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        skipLibCheck: true,
        types: ['node'],
        outDir: 'out',
      },
      files: ['app.ts'],
    }),
  );
  const compiled = await installed.run(TSC, ['-p', 'tsconfig.app.json']);
  expect({ code: compiled.code, stdout: compiled.stdout }).toEqual({ code: 0, stdout: '' });
}

describe('a CDK app with the installed package', () => {
  it('was installed beside the newest aws-cdk-lib its peer range admits', async () => {
    const range = manifest.peerDependencies['aws-cdk-lib'];
    const listed = await installed.run('npm', [
      'view',
      `aws-cdk-lib@${range}`,
      'version',
      '--json',
    ]);
    expect(listed.code).toBe(0);
    // The registry lists versions in publishing order (a backport can come last): the newest
    // is the highest.
    const numbers = (version: string) => version.split('.').map(Number);
    const newest = [JSON.parse(listed.stdout) as string | string[]]
      .flat()
      .sort((a, b) => {
        const [x, y] = [numbers(a), numbers(b)];
        return (x[0] ?? 0) - (y[0] ?? 0) || (x[1] ?? 0) - (y[1] ?? 0) || (x[2] ?? 0) - (y[2] ?? 0);
      })
      .at(-1);
    const shipped = JSON.parse(
      readFileSync(join(installed.dir, 'node_modules/aws-cdk-lib/package.json'), 'utf8'),
    ) as { version: string };
    expect(shipped.version).toBe(newest);
  });

  it("synthesizes the example composition with cdk-nag, wiring the user's API, queue and cache and none of its own", async () => {
    await compileExample('existing-resources');
    // The app runs cdk-nag's AwsSolutions and Serverless packs: a finding fails its synth.
    const outdir = join(installed.dir, 'cdk.out');
    const run = await installed.run(process.execPath, [join(installed.dir, 'out', 'app.js')], {
      CDK_OUTDIR: outdir,
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const template = JSON.parse(readFileSync(join(outdir, 'JobsIngest.template.json'), 'utf8')) as {
      Resources: Record<string, { Type: string; Properties: Record<string, unknown> }>;
    };
    const resources = Object.values(template.Resources);
    const ofType = (type: string) => resources.filter((resource) => resource.Type === type);
    for (const own of [
      'AWS::ApiGatewayV2::Api',
      'AWS::SQS::Queue',
      'AWS::ElastiCache::ReplicationGroup',
      'AWS::ElastiCache::ServerlessCache',
    ]) {
      expect(ofType(own), own).toEqual([]);
    }
    const routes = ofType('AWS::ApiGatewayV2::Route');
    expect(routes.map((route) => route.Properties.ApiId)).toEqual(routes.map(() => 'a1b2c3d4e5'));
    expect(routes.map((route) => route.Properties.RouteKey).sort()).toEqual([
      'GET /queues/{queue}/jobs/{id}',
      'HEAD /queues/{queue}/jobs/{id}',
      'POST /queues/{queue}/jobs',
      'POST /queues/{queue}/jobs/batch',
      'PUT /queues/{queue}/jobs/{id}',
    ]);
    expect(
      ofType('AWS::Lambda::EventSourceMapping').map((m) => m.Properties.EventSourceArn),
    ).toEqual(['arn:aws:sqs:us-east-1:123456789012:jobs']);
    expect(
      ofType('AWS::EC2::SecurityGroupIngress').map((rule) => [
        rule.Properties.GroupId,
        rule.Properties.FromPort,
      ]),
    ).toEqual([['sg-0ccccccccccccccc0', 6379]]);
    // A synthesis takes seconds alone and up to a minute on a busy machine.
  }, 300_000);

  it('synthesizes every cache kind under both cdk-nag packs, selfManaged deploying the module builds it ships', async () => {
    await compileExample('every-variant');
    const outdir = join(installed.dir, 'cdk.out.variants');
    const run = await installed.run(process.execPath, [join(installed.dir, 'out', 'app.js')], {
      CDK_OUTDIR: outdir,
    });
    // Any finding of either pack, or of aws-cdk-lib's own template validation, is printed.
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const stacks = [
      'ElastiCache',
      'Serverless',
      'MemoryDb',
      'SelfManagedGraviton',
      'SelfManagedX86',
    ];
    for (const stack of [...stacks, 'ExistingFunctionUrl', 'TeamRestApi', 'TeamJwtHttpApi']) {
      expect(existsSync(join(outdir, `${stack}.template.json`)), stack).toBe(true);
    }
    // The asset each self-managed stack uploads for its nodes is the build for their CPU.
    const moduleAssetCpu = (stack: string) => {
      const manifest = JSON.parse(readFileSync(join(outdir, `${stack}.assets.json`), 'utf8')) as {
        files: Record<string, { source: { path: string } }>;
      };
      return Object.values(manifest.files)
        .map(({ source }) => source.path)
        .filter((path) => path.endsWith('.so'))
        .map((path) => moduleArchitecture(join(outdir, path)));
    };
    expect(moduleAssetCpu('SelfManagedGraviton')).toEqual(['arm64']);
    expect(moduleAssetCpu('SelfManagedX86')).toEqual(['x86_64']);
  }, 300_000);
});
