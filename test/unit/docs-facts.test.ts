// The user pages (README.md, docs/*.md, bench/README.md) state facts the code decides: the
// outcome table, the limits, the context keys, the CLI's commands and flags, the local stack's
// options and every EMQ_* name. This holds each page to the code, and keeps the pages
// followable from a clone: no link leaves the repository, every link and anchor resolves, and
// no page points at a contract section or an issue a reader cannot open. A link by the
// repository's own address (package.json `repository`) counts as inside it: the tarball ships
// the README and docs but not what they link there (examples/, bench/).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Io } from '../../cli/io.js';
import { run } from '../../cli/program.js';
import { MAX_BATCH_BODY_BYTES, MAX_BATCH_JOBS } from '../../functions/http/batch-body.js';
import { CONTEXT_KEYS } from '../../infra/deployment/context.js';
import { USAGE } from '../../scripts/local/options.js';
import { MAX_IDEMPOTENCY_KEY_BYTES } from '../../src/keyspace/keyspace.js';
import { OUTCOMES } from '../../src/outcomes/outcomes.js';
import { DEFAULTS } from '../../src/settings/config.js';
import { tableUnder } from '../support/markdown.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PAGES = [
  'README.md',
  'bench/README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];
const text = (page: string): string => readFileSync(join(ROOT, page), 'utf8');
/** `https://github.com/<owner>/<name>` from package.json's `repository`. */
const REPOSITORY = (
  JSON.parse(text('package.json')) as { repository: { url: string } }
).repository.url
  .replace(/^git\+/, '')
  .replace(/\.git$/, '');
/** A link to the repository's main branch, as the repository-relative path it names. */
const OWN_ADDRESS = new RegExp(`^${REPOSITORY.replace(/[.]/g, '\\.')}/(?:tree|blob)/main/`);

/** A page's prose (fenced blocks removed) and the lines of its shell and output blocks. */
function split(page: string): { prose: string; code: string[] } {
  const prose: string[] = [];
  const code: string[] = [];
  let fence: string | undefined;
  for (const line of text(page).split('\n')) {
    if (line.startsWith('```')) fence = fence === undefined ? line.slice(3) : undefined;
    else if (fence === undefined) prose.push(line);
    // A diagram's labels are not commands.
    else if (fence !== 'mermaid') code.push(line);
  }
  return { prose: prose.join('\n'), code };
}

/** Everything a reader would type: inline code spans of the prose and the code lines. */
function typed(page: string): string[] {
  const { prose, code } = split(page);
  return [...[...prose.matchAll(/`([^`\n]+)`/g)].map(([, span]) => span ?? ''), ...code];
}

/** The anchors GitHub makes of a page's headings. */
function anchors(page: string): Set<string> {
  return new Set(
    split(page)
      .prose.split('\n')
      .filter((line) => /^#{1,6} /.test(line))
      .map((line) =>
        line
          .replace(/^#+ /, '')
          .toLowerCase()
          .replace(/[^\p{L}\p{N} _-]/gu, '')
          .replace(/ /g, '-'),
      ),
  );
}

describe.each(PAGES)('%s', (page) => {
  it('links only inside the repository, to files and headings that exist', () => {
    const { prose } = split(page);
    const links = [
      ...prose.replace(/`[^`\n]*`/g, '').matchAll(/\]\(([^)\s]+)\)|<(https?:[^>]+)>/g),
    ];
    const broken: string[] = [];
    for (const [, target = '', autolink] of links) {
      const own = OWN_ADDRESS.test(target);
      if (autolink !== undefined || (!own && /^[a-z]+:|^\/\//i.test(target))) {
        broken.push(`${target || autolink}: outside the repository`);
        continue;
      }
      const [path = '', anchor] = target.replace(OWN_ADDRESS, '').split('#');
      const file = own
        ? join(ROOT, path)
        : path === ''
          ? join(ROOT, page)
          : join(ROOT, dirname(page), path);
      if (!existsSync(file) || !relative(ROOT, file) || relative(ROOT, file).startsWith('..')) {
        broken.push(`${target}: no such file in the repository`);
      } else if (anchor !== undefined && !anchors(relative(ROOT, file)).has(anchor)) {
        broken.push(`${target}: no such heading`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('names no contract section, issue or path outside the repository', () => {
    const found = text(page).match(/\bSPEC\b|§\s*\d|\bissues? \d+|\.\.\/shared\b/gi);
    expect(found).toBeNull();
  });

  it('names only context keys the CDK app reads', () => {
    const keys = typed(page).flatMap((line) =>
      [...line.matchAll(/(?:^|\s)-c ([A-Za-z]+)/g)].map(([, key]) => key ?? ''),
    );
    expect(keys.filter((key) => !CONTEXT_KEYS.includes(key))).toEqual([]);
  });

  it('names only options the local stack takes', () => {
    const options = typed(page).flatMap((line) => {
      const after = /npm start -- (.*)/.exec(line)?.[1] ?? '';
      return [...after.replace(/#.*/, '').matchAll(/--[a-z-]+/g)].map(([flag]) => flag);
    });
    const offered = (flag: string) => new RegExp(`^ {2}(-\\w, )?${flag}\\b`, 'm').test(USAGE);
    expect(options.filter((flag) => !offered(flag))).toEqual([]);
  });

  it('names only emq commands and flags that exist', async () => {
    const uses = typed(page).flatMap((line) =>
      [...line.replace(/#.*/, '').matchAll(/(?:^|npx |\$ )emq ([a-z]+)((?: [^|`]*)?)/g)].map(
        ([, command = '', rest = '']) => ({ command, rest }),
      ),
    );
    const wrong: string[] = [];
    for (const { command, rest } of uses) {
      const sub = command === 'fence' ? /^ ([a-z]+)/.exec(rest)?.[1] : undefined;
      const words = sub === undefined ? [command] : [command, sub];
      const help = await helpOf(words);
      if (help === undefined) {
        wrong.push(`emq ${words.join(' ')}: no such command`);
        continue;
      }
      for (const [flag] of rest.matchAll(/--[a-z][a-z-]*/g)) {
        if (!help.includes(`${flag} `) && !help.includes(`${flag},`) && !help.endsWith(flag)) {
          wrong.push(`emq ${words.join(' ')} ${flag}: no such flag`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it('names only EMQ_* variables and codes the code knows', () => {
    const code = codeText();
    const names = new Set(text(page).match(/\bEMQ_[A-Z0-9_]*[A-Z0-9]\b/g) ?? []);
    expect([...names].filter((name) => !code.includes(name))).toEqual([]);
  });
});

/** `emq <words> --help`, or undefined when there is no such command. */
async function helpOf(words: readonly string[]): Promise<string | undefined> {
  let out = '';
  const io: Io = {
    out: (chunk) => {
      out += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString();
    },
    err: () => {},
    readStdin: async () => Buffer.alloc(0),
    stdinIsTerminal: false,
    env: {},
  };
  const code = await run([...words, '--help'], io);
  return code === 0 && out.startsWith(`Usage: emq ${words.join(' ')} `) ? out : undefined;
}

let sources: string | undefined;
/** The text of every source file the product, its tools and its tests are made of. */
function codeText(): string {
  if (sources !== undefined) return sources;
  const read = (dir: string): string[] =>
    readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) return entry.name === 'build' ? [] : read(path);
      return /\.(ts|sh|lua|c|h)$/.test(entry.name) ? [readFileSync(join(ROOT, path), 'utf8')] : [];
    });
  sources = ['src', 'client', 'functions', 'cli', 'scripts', 'infra', 'bench', 'test', 'module']
    .flatMap(read)
    .join('\n');
  return sources;
}

describe('docs/reliability.md, the outcome table', () => {
  const rows = tableUnder(text('docs/reliability.md'), '## Outcomes', 'docs/reliability.md');

  it('has one row per code of src/outcomes/outcomes.ts', () => {
    expect(rows.map(([code]) => code?.replace(/`/g, '')).sort()).toEqual(
      Object.keys(OUTCOMES).sort(),
    );
  });

  it.each(rows)(
    '%s says what src/outcomes/outcomes.ts says',
    (code, outcomeClass, retryable, status, retryAfter, sqs) => {
      const outcome = Object.entries(OUTCOMES).find(([name]) => `\`${name}\`` === code)?.[1];
      expect(outcome).toBeDefined();
      if (outcome === undefined) return;
      expect({ outcomeClass, retryable, status, retryAfter, sqs }).toEqual({
        outcomeClass: outcome.class,
        retryable: outcome.retryable ? 'yes' : 'no',
        status: String(outcome.status),
        retryAfter:
          outcome.retryAfterSeconds === undefined ? '-' : String(outcome.retryAfterSeconds),
        sqs: outcome.messageFault ? 'DLQ' : 'retried',
      });
    },
  );
});

describe('docs/deploy.md, the context table', () => {
  it('lists every context key the CDK app reads, and nothing else', () => {
    // The context table, and the generated one of the functions' settings.
    const listed = ['## Context', "### The functions' settings"]
      .flatMap((heading) => tableUnder(text('docs/deploy.md'), heading, 'docs/deploy.md'))
      .flatMap(([keys = '']) => [...keys.matchAll(/`([A-Za-z]+)`/g)].map(([, key]) => key ?? ''));
    expect([...listed].sort()).toEqual([...CONTEXT_KEYS].sort());
  });
});

describe('the README, the limits of the HTTP face', () => {
  const readme = text('README.md');
  const grouped = (n: number) => n.toLocaleString('en-US');

  it('states the payload cap, the batch limits and the key length the code enforces', () => {
    expect(readme).toContain(`default ${grouped(DEFAULTS.maxPayloadBytes)} bytes`);
    expect(readme).toContain(`1 to ${grouped(MAX_BATCH_JOBS)} jobs`);
    expect(readme).toContain(`${grouped(MAX_BATCH_BODY_BYTES)} bytes`);
    expect(readme).toContain(`1 to ${MAX_IDEMPOTENCY_KEY_BYTES} printable ASCII characters`);
  });

  it('is short enough to read in ten minutes', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(300);
  });
});
