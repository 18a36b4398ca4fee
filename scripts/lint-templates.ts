/**
 * `npm run lint:templates [folder...]`: AWS's CloudFormation linter over every synthesized
 * variant. Synthesizes each app of examples/ (every cache kind and face, with the package's
 * built constructs: run `npm run build` first) into a folder of its own, then runs cfn-lint over
 * those templates and the ones in each folder given (CI passes cdk.out, the repository's app).
 * Fails on any error cfn-lint reports but the ones scripts/cfn-lint-accepted.ts names, each with
 * its reason;
 * warnings are counted, not failed.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ACCEPTED } from './cfn-lint-accepted.js';
import { synthesizeExamples } from './synth-examples.js';

interface Finding {
  readonly Filename: string;
  readonly Level: 'Error' | 'Warning' | 'Informational';
  readonly Location: {
    readonly Path: readonly (string | number)[];
    readonly Start: { readonly LineNumber: number };
  };
  readonly Message: string;
  readonly Rule: { readonly Id: string };
}

function templatesIn(folder: string): string[] {
  return readdirSync(folder)
    .filter((name) => name.endsWith('.template.json'))
    .map((name) => join(folder, name));
}

function resourceType(file: string, path: readonly (string | number)[]): string | undefined {
  if (path[0] !== 'Resources') return undefined;
  const template = JSON.parse(readFileSync(file, 'utf8')) as {
    Resources: Record<string, { Type: string }>;
  };
  return template.Resources[String(path[1])]?.Type;
}

function lint(templates: readonly string[]): Finding[] {
  const run = spawnSync(
    'cfn-lint',
    ['--format', 'json', '--non-zero-exit-code', 'none', '--', ...templates],
    {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  if (run.error !== undefined)
    throw new Error(`cfn-lint did not run (${run.error.message}): pip install cfn-lint`);
  if (run.status !== 0) throw new Error(`cfn-lint failed:\n${run.stderr}`);
  return JSON.parse(run.stdout) as Finding[];
}

const root = mkdtempSync(join(tmpdir(), 'emq-templates-'));
try {
  const folders = [...(await synthesizeExamples(root)), ...process.argv.slice(2)];
  const templates = folders.flatMap(templatesIn);
  const findings = lint(templates);
  const accepted = (finding: Finding) =>
    ACCEPTED.find(
      (rule) =>
        rule.rule === finding.Rule.Id &&
        rule.message.test(finding.Message) &&
        resourceType(finding.Filename, finding.Location.Path) === rule.resourceType,
    );
  const errors = findings.filter(
    (finding) => finding.Level === 'Error' && accepted(finding) === undefined,
  );
  const counts = new Map<string, number>();
  for (const finding of findings) {
    const key = `${finding.Level.toLowerCase()} ${finding.Rule.Id}${accepted(finding) ? ' (accepted)' : ''}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  console.log(`cfn-lint: ${templates.length} templates from ${folders.length} apps`);
  for (const [key, count] of [...counts].sort()) console.log(`  ${key}: ${count}`);
  for (const error of errors) {
    console.log(
      `error ${error.Rule.Id} ${error.Filename}:${error.Location.Start.LineNumber}: ${error.Message}`,
    );
  }
  process.exitCode = errors.length === 0 ? 0 : 1;
} finally {
  rmSync(root, { recursive: true, force: true });
}
