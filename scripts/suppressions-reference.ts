/**
 * Writes docs/linting.md: every cdk-nag and aws-cdk-lib validation rule the constructs
 * acknowledge, with the reason given in code and where, read from the synthesized apps of
 * examples/ (one composes every cache kind; synth-examples.ts: run `npm run build` first), and
 * the cfn-lint errors scripts/cfn-lint-accepted.ts accepts. Run it
 * after changing an acknowledgment: `npx tsx scripts/suppressions-reference.ts`; a test fails
 * while the page and the code differ.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ACCEPTED } from './cfn-lint-accepted.js';
import { synthesizeExamples } from './synth-examples.js';

export const PAGE = fileURLToPath(new URL('../docs/linting.md', import.meta.url));
/** The metadata type aws-cdk-lib records `Validations.of(...).acknowledge` under. */
const ACKNOWLEDGED = 'aws:cdk:acknowledged-rules';

interface Entry {
  readonly type: string;
  readonly data?: unknown;
}

/** rule id → reason → the construct paths (below EchoMq) that acknowledge it. */
type Acknowledgments = Map<string, Map<string, Set<string>>>;

function acknowledgmentsIn(outdirs: readonly string[]): Acknowledgments {
  const found: Acknowledgments = new Map();
  const files = outdirs.flatMap((outdir) =>
    readdirSync(outdir)
      .filter((name) => name.endsWith('.metadata.json'))
      .map((name) => join(outdir, name)),
  );
  for (const file of files) {
    const metadata = JSON.parse(readFileSync(file, 'utf8')) as Record<string, Entry[]>;
    // The construct's own acknowledgments: below it, and on the methods it adds to the team's
    // REST API (under the routes' `queues/` resource); the apps' other constructs are the user's.
    const own = Object.entries(metadata).filter(
      ([path]) => path.split('/')[2] === 'EchoMq' || path.includes('/queues/'),
    );
    for (const [path, entries] of own) {
      // `/<stack>/EchoMq/Cache/Node3/Instance` → `Cache/Node<n>/Instance`.
      const where = path.includes('/queues/')
        ? "the team's REST API: the methods of the routes"
        : path
            .split('/')
            .slice(3)
            .join('/')
            .replace(/(?<=[A-Za-z])\d+(?=\/|$)/g, '<n>');
      for (const entry of entries.filter((each) => each.type === ACKNOWLEDGED)) {
        for (const [key, reason] of Object.entries(entry.data as Record<string, string>)) {
          const rule = key.replace(/^Annotation::/, '');
          const reasons = found.get(rule) ?? new Map<string, Set<string>>();
          found.set(rule, reasons);
          const paths = reasons.get(reason) ?? new Set<string>();
          reasons.set(reason, paths);
          paths.add(where || '(the construct)');
        }
      }
    }
  }
  return found;
}

async function synthesize(): Promise<Acknowledgments> {
  const root = mkdtempSync(join(tmpdir(), 'emq-suppressions-'));
  try {
    return acknowledgmentsIn(await synthesizeExamples(root));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\s+/g, ' ');
}

/** The page's text for the constructs as they synthesize now. */
export async function suppressionsReference(): Promise<string> {
  const found = await synthesize();
  const lines = [
    '# Linting: cdk-nag, aws-cdk-lib validation and cfn-lint',
    '',
    "Every composition of the construct (each cache kind, each face) passes cdk-nag's",
    'AwsSolutions and Serverless packs and the template validation aws-cdk-lib runs at synthesis,',
    'with the newest aws-cdk-lib the peer range admits (the package test synthesizes the',
    "repository's `examples/every-variant` from the installed package), and cfn-lint with no",
    'error but the ones named below (CI lints every synthesized template). Generated from the',
    "repository's examples by `scripts/suppressions-reference.ts`: do not edit.",
    '',
    '## Rules the construct acknowledges',
    '',
    'Each is acknowledged in code with `Validations.of(construct).acknowledge({ id, reason })`',
    'on the construct named (paths below the `EchoMq` construct; `<n>` is a node number). Your',
    'app sees no finding for them; every other finding is yours to judge.',
    '',
    '| rule | where | why |',
    '| --- | --- | --- |',
  ];
  for (const rule of [...found.keys()].sort()) {
    for (const [reason, paths] of found.get(rule) ?? []) {
      const where = [...paths]
        .sort()
        .map((path) => `\`${path}\``)
        .join(', ');
      lines.push(`| \`${rule}\` | ${cell(where)} | ${cell(reason)} |`);
    }
  }
  lines.push(
    '',
    '## cfn-lint errors accepted',
    '',
    '`npm run lint:templates` (scripts/lint-templates.ts) fails on any other error; warnings are',
    'counted, not failed.',
    '',
    '| rule | on | why |',
    '| --- | --- | --- |',
    ...ACCEPTED.map(
      (rule) => `| \`${rule.rule}\` | \`${rule.resourceType}\` | ${cell(rule.why)} |`,
    ),
  );
  return `${lines.join('\n')}\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(PAGE, await suppressionsReference());
  console.log(`suppressions-reference: wrote ${PAGE}`);
}
