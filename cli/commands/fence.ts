/**
 * `emq fence check | install`: reads or writes the wire identity `{emq}:version` on every
 * primary (docs/wire.md, "The fence"). Both connect without the fence check, which is what they
 * inspect.
 */
import { Command } from 'commander';
import { evictsJobs, install } from '../../src/connection/fence.js';
import { type FenceReading, readNodes } from '../../src/connection/node-reading.js';
import { LIBRARY_VERSION } from '../../src/families/library.js';
import { DEFAULTS } from '../../src/settings/config.js';
import { type ConnectionFlags, withConnection, withConnectionFlags } from '../connection.js';
import { EXIT_FAILED, EXIT_OK, exitCodesText } from '../failures.js';
import type { CommandResult, OutputFlags } from '../output.js';
import type { Session } from '../session.js';

type FenceFlags = ConnectionFlags & OutputFlags;

const UNFENCED = { checkFence: false } as const;

export function fenceCommand(session: Session): Command {
  const fence = new Command('fence').description(
    'check or install the wire identity ({emq}:version) on every primary',
  );
  fence.addCommand(
    fenceFlags(new Command('check'))
      .description(
        "show each primary's wire identity, library and memory policy; fails unless all match and none evicts jobs",
      )
      .addHelpText(
        'after',
        `\n\`emq doctor\` runs every check a function runs when it connects.\n${exitCodesText('every primary matches', 'one does not, or it failed')}`,
      )
      .action((flags: FenceFlags) =>
        session.run(flags, async () => {
          const readings = await withConnection(session.io, flags, UNFENCED, (connection) =>
            readNodes(connection).then((nodes) => ({ wire: connection.config.wire, nodes })),
          );
          return resultOf(readings.wire, readings.nodes, 'check');
        }),
      ),
  );
  fence.addCommand(installCommand(session));
  return fence;
}

/**
 * `emq install` (also `emq fence install`): on every primary, this host's wire identity and
 * the emq function library (docs/wire.md, "The fence"), idempotently.
 */
export function installCommand(session: Session): Command {
  return fenceFlags(new Command('install'))
    .description(
      "install this host's wire identity and the emq function library on every primary (idempotent)",
    )
    .addHelpText(
      'after',
      `\nRefused (EMQWIRE) where a node's module is built for another identity.\n${exitCodesText('installed everywhere')}`,
    )
    .action((flags: FenceFlags) =>
      session.run(flags, async () => {
        const readings = await withConnection(session.io, flags, UNFENCED, (connection) =>
          install(connection).then((nodes) => ({ wire: connection.config.wire, nodes })),
        );
        return resultOf(readings.wire, readings.nodes, 'install');
      }),
    );
}

function fenceFlags(command: Command): Command {
  return withConnectionFlags(command).option(
    '--wire <identity>',
    `the wire identity this host expects (overrides EMQ_WIRE; default ${DEFAULTS.wire})`,
  );
}

function resultOf(
  wire: string,
  nodes: readonly FenceReading[],
  verb: 'check' | 'install',
): CommandResult {
  const bad = nodes.filter((node) => !node.ok).length;
  const evicting = nodes.filter((node) => evictsJobs(node.policy));
  // The installer's work is done on an evicting server; only the check fails for the policy.
  const ok = bad === 0 && (verb === 'install' || evicting.length === 0);
  const header = ['node', 'module', 'value', 'library', 'policy', 'ok'];
  const rows = nodes.map((node) => [
    node.node,
    node.module ?? '-',
    node.value ?? '(missing)',
    node.library ?? '(missing)',
    node.policy,
    node.ok && (verb === 'install' || !evictsJobs(node.policy)) ? 'yes' : 'NO',
  ]);
  const notes = [
    bad === 0
      ? undefined
      : `emq: EMQWIRE: ${bad} of ${nodes.length} primaries do not hold wire identity '${wire}' and emq library ${LIBRARY_VERSION}${verb === 'check' ? '; run `emq install` once hosts and module agree' : ''}.`,
    evicting.length === 0
      ? undefined
      : `emq: EMQ_CONFIG: ${evicting.length} of ${nodes.length} primaries run an allkeys-* memory policy (${[...new Set(evicting.map((node) => node.policy))].join(', ')}), which may evict job rows and idempotency records: the functions refuse to serve there. Set maxmemory-policy noeviction (or a volatile-* policy).`,
  ].filter((note) => note !== undefined);
  return {
    json: { wire, ok, nodes },
    text: columns([header, ...rows]),
    note: notes.length === 0 ? undefined : notes.join('\n'),
    exitCode: ok ? EXIT_OK : EXIT_FAILED,
  };
}

function columns(rows: readonly (readonly string[])[]): string {
  const widths =
    rows[0]?.map((_, index) => Math.max(...rows.map((row) => row[index]?.length ?? 0))) ?? [];
  return rows
    .map(
      (row) =>
        `${row
          .map((cell, index) => cell.padEnd(widths[index] ?? 0))
          .join('  ')
          .trimEnd()}\n`,
    )
    .join('');
}
