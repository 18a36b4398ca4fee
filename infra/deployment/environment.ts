/**
 * The functions' EMQ_* environment: the tunables from the settings table (src/settings/settings-table.ts),
 * and the runtime's own loadConfig as the judge of it at synthesis, so an environment that
 * synthesizes is one every function accepts at cold start.
 */
import { Token } from 'aws-cdk-lib';
import { ConfigError } from '../../src/outcomes/outcomes.js';
import { loadConfig } from '../../src/settings/config.js';
import {
  SETTING_NAMES,
  SETTINGS,
  type SettingValues,
  settingOfEnv,
} from '../../src/settings/settings-table.js';

/**
 * Every tunable with its value, for the function of one face (infra/faces/registry.ts) or the
 * installer (`fence`): the rows for all, and the rows of that face alone (`sqs`'s).
 */
export function emqEnvironment(
  values: Required<SettingValues>,
  face: string,
): Record<string, string> {
  const reaches = (faces: string) => faces === 'all' || faces === face;
  return Object.fromEntries(
    SETTING_NAMES.filter((name) => reaches(SETTINGS[name].deploy.faces)).map((name) => [
      SETTINGS[name].env,
      String(values[name]),
    ]),
  );
}

/**
 * Nothing when the runtime accepts the tunables together. Else one problem per tunable it
 * refuses on its own, or (when each is acceptable) what it refuses of them together (a WAIT
 * longer than the command timeout), each naming the setting. Together first: a rule between
 * settings (a record life, EMQ_DEDUPE_TTL_MS, past the timeouts' resend span) judged alone would hold one setting
 * against the others' defaults, not against the values given.
 */
export function settingsProblems(values: Required<SettingValues>): string[] {
  const together = refusal(emqEnvironment(values, 'sqs'));
  if (together.length === 0) return [];
  const alone = SETTING_NAMES.flatMap((name) =>
    refusal({ [SETTINGS[name].env]: String(values[name]) }),
  );
  return alone.length > 0 ? alone : together;
}

/**
 * What the runtime refuses in a function's whole environment. Values only known at deploy (an
 * endpoint's address, a secret's ARN) are left to their defaults: they come from resources, not
 * from a choice. AWS_REGION is what Lambda sets in every function.
 */
export function environmentProblems(
  environment: Readonly<Record<string, string>>,
  region: string,
): string[] {
  const known = Object.entries(environment).filter(([, value]) => !Token.isUnresolved(value));
  const lambdaRegion = Token.isUnresolved(region) ? 'us-east-1' : region;
  return refusal({ ...Object.fromEntries(known), AWS_REGION: lambdaRegion });
}

function refusal(environment: Record<string, string>): string[] {
  try {
    loadConfig(environment);
    return [];
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return [named(error.message)];
  }
}

/** The runtime names variables; a deployment chooses settings: name both. */
function named(message: string): string {
  return message.replace(/\bEMQ_[A-Z_]+\b/g, (env) => {
    const name = settingOfEnv(env);
    return name === undefined ? env : `${name} (${env})`;
  });
}
