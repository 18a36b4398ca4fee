/**
 * `emq doctor`: every check a function runs when it connects (credentials, cluster mode,
 * identity, library, memory policy, on every primary), then the calls the target must run
 * for the chosen family: a dry admit on every primary (refused for its layout, nothing
 * written) and WAIT where EMQ_ACK_REPLICAS asks for it. Exit 0 only when all pass.
 */
import { Command } from 'commander';
import { openCredentials } from '../../functions/shared/open-credentials.js';
import { checkTarget, type Finding } from '../../src/doctor.js';
import type { Config } from '../../src/settings/config.js';
import { type ConnectionFlags, configFrom, withConnectionFlags } from '../connection.js';
import { diagnose } from '../diagnose.js';
import { EXIT_FAILED, EXIT_OK, exitCodesText, reportOf } from '../failures.js';
import type { CommandResult, OutputFlags } from '../output.js';
import type { Session } from '../session.js';

type DoctorFlags = ConnectionFlags & OutputFlags;

export function doctorCommand(session: Session): Command {
  return withConnectionFlags(
    new Command('doctor').description(
      'run every connect-time check the functions run, then the calls the target must serve',
    ),
  )
    .addHelpText(
      'after',
      `\nChecks: credentials, cluster mode, wire identity, library, memory policy (allkeys-* is\nrefused), a dry admit call on every primary (EMQLAYOUT proves it runs; nothing is\nwritten), and WAIT when EMQ_ACK_REPLICAS is above 0.\n${exitCodesText('every check passed', 'a check failed')}`,
    )
    .action((flags: DoctorFlags) => session.run(flags, () => doctor(session, flags)));
}

async function doctor(session: Session, flags: DoctorFlags): Promise<CommandResult> {
  const config = configFrom(session.io.env, flags);
  const report = await checkTarget({ ...config, ...(await openCredentials(config)) });
  const findings = await Promise.all(
    report.findings.map((finding) => explained(finding, report.failure, config)),
  );
  const rows = findings.map(
    (finding) => `${finding.ok ? 'ok ' : 'NO '} ${finding.name}: ${finding.detail}\n`,
  );
  return {
    json: {
      ok: report.ok,
      family: report.family,
      // The documented JSON key: one item per check, each what that check found.
      checks: findings,
      nodes: report.nodes,
    },
    text: rows.join(''),
    note: report.ok ? undefined : 'emq: some checks failed; what to do is on each NO line.',
    exitCode: report.ok ? EXIT_OK : EXIT_FAILED,
  };
}

/**
 * A failed connect finding, told as the other commands tell it: what is at the address
 * (nothing, not Valkey, a server in the other cluster mode) and what to change.
 */
async function explained(finding: Finding, failure: unknown, config: Config): Promise<Finding> {
  if (finding.ok || finding.name !== 'connect' || failure === undefined) return finding;
  const told = reportOf(
    await diagnose(failure, {
      urls: config.urls,
      cluster: config.cluster,
      timeoutMs: config.connectTimeoutMs,
    }),
  );
  return { ...finding, detail: `${told.code}: ${told.message}` };
}
