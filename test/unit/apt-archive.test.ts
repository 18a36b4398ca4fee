// The Valkey installers take packages from the Debian archive the machine's apt already uses
// (scripts/valkey/apt-archive.sh), so the repository names none: the URI is read from sample
// apt directories in both formats, and the installers and their docs hold no URI of their own.
// The samples are local `file:` archives, a form apt takes, so no host is named here either.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const LIBRARY = join(ROOT, 'scripts/valkey/apt-archive.sh');
const folders: string[] = [];

afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** An apt directory holding `files` (paths relative to it). */
function aptDir(files: Readonly<Record<string, string>>): string {
  const dir = mkdtempSync(join(tmpdir(), 'emq-apt-'));
  folders.push(dir);
  mkdirSync(join(dir, 'sources.list.d'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

/** `debian_archive_uri suite dir`: what it prints and its exit status. */
function uriOf(suite: string, dir: string): { uri: string; status: number | null } {
  const run = spawnSync(
    'bash',
    ['-c', '. "$1"; debian_archive_uri "$2" "$3"', 'test', LIBRARY, suite, dir],
    { encoding: 'utf8' },
  );
  expect(run.stderr).toBe('');
  return { uri: run.stdout.trim(), status: run.status };
}

const DEB822 = `Types: deb
# file:/srv/archive/old-snapshot
URIs: file:/srv/mirror/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: file:/srv/mirror/debian-security
Suites: bookworm-security
Components: main
`;

describe('debian_archive_uri', () => {
  it('reads a deb822 .sources file: the first enabled deb stanza serving the suite', () => {
    const dir = aptDir({ 'sources.list.d/debian.sources': DEB822 });
    expect(uriOf('bookworm', dir)).toEqual({ uri: 'file:/srv/mirror/debian', status: 0 });
    expect(uriOf('bookworm-updates', dir).uri).toBe('file:/srv/mirror/debian');
    expect(uriOf('bookworm-security', dir).uri).toBe('file:/srv/mirror/debian-security');
  });

  it('skips source-only and disabled stanzas, and a Signed-By key block', () => {
    const dir = aptDir({
      'sources.list.d/a.sources': `Types: deb-src
URIs: file:/srv/source/debian
Suites: bookworm
Components: main

Types: deb
Enabled: no
URIs: file:/srv/off/debian
Suites: bookworm
Components: main

Types: deb deb-src
URIs: file:/srv/first/debian file:/srv/second/debian
Suites: bookworm
Components: main
Signed-By:
 -----BEGIN PGP PUBLIC KEY BLOCK-----
 Suites: not-a-field
 -----END PGP PUBLIC KEY BLOCK-----
`,
    });
    expect(uriOf('bookworm', dir).uri).toBe('file:/srv/first/debian');
    expect(uriOf('not-a-field', dir).status).toBe(1);
  });

  it('reads the one-line format, options in brackets included, sources.list first', () => {
    const dir = aptDir({
      'sources.list': `# deb file:/srv/commented/debian bookworm main
deb-src file:/srv/source/debian bookworm main
deb [arch=amd64 signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] file:/srv/list/debian bookworm main contrib
`,
      'sources.list.d/debian.sources': DEB822,
      'sources.list.d/extra.list': 'deb [ trusted=yes ] file:/srv/extra/debian sid main\n',
    });
    expect(uriOf('bookworm', dir).uri).toBe('file:/srv/list/debian');
    expect(uriOf('sid', dir).uri).toBe('file:/srv/extra/debian');
  });

  it('ignores files apt itself ignores, and answers 1 when no entry serves the suite', () => {
    const dir = aptDir({
      'sources.list.d/old.list.disabled': 'deb file:/srv/disabled/debian bookworm main\n',
    });
    expect(uriOf('bookworm', dir)).toEqual({ uri: '', status: 1 });
  });
});

describe('the installers', () => {
  it.each([
    'scripts/install-valkey.sh',
    'scripts/valkey/install-8.0.sh',
    'scripts/valkey/install-9.1.sh',
    'scripts/valkey/apt-archive.sh',
  ])('%s names no archive: it has no URI of its own', (file) => {
    expect(readFileSync(join(ROOT, file), 'utf8')).not.toMatch(/[a-z]+:\/\//i);
  });

  it('docs/development.md names no URI but the local stack’s', () => {
    const uris = readFileSync(join(ROOT, 'docs/development.md'), 'utf8').match(/[a-z]+:\/\/\S+/gi);
    expect((uris ?? []).filter((uri) => !/^https?:\/\/127\.0\.0\.1[:/]/.test(uri))).toEqual([]);
  });
});
