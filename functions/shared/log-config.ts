/**
 * The faces' logging settings, read once from the environment: Lambda's and Powertools'
 * conventions, so a function is tuned like any other Lambda function. The only place the
 * faces read these variables.
 *
 * - level: `AWS_LAMBDA_LOG_LEVEL` (Lambda's advanced logging controls), else
 *   `POWERTOOLS_LOG_LEVEL`, else INFO. TRACE counts as DEBUG, FATAL and CRITICAL as ERROR,
 *   SILENT writes no log lines (metrics still go out).
 * - service: `POWERTOOLS_SERVICE_NAME`, else `echomq-lambda`; on every line.
 * - metrics namespace: `POWERTOOLS_METRICS_NAMESPACE`, else `EchoMQ/Lambda`.
 */
export type Level = 'debug' | 'info' | 'warn' | 'error';
export type Threshold = Level | 'silent';

export interface LogSettings {
  /** The least severe level written. Default `info`. */
  readonly level: Threshold;
  /** Default `echomq-lambda`. */
  readonly service: string;
  /** Default `EchoMQ/Lambda`. */
  readonly metricsNamespace: string;
}

export const LOG_DEFAULTS: LogSettings = {
  level: 'info',
  service: 'echomq-lambda',
  metricsNamespace: 'EchoMQ/Lambda',
};

const LEVEL_NAMES: Readonly<Record<string, Threshold>> = {
  trace: 'debug',
  debug: 'debug',
  info: 'info',
  warn: 'warn',
  warning: 'warn',
  error: 'error',
  critical: 'error',
  fatal: 'error',
  silent: 'silent',
};

/** The settings an environment asks for; unknown level names fall through to the next source. */
export function logSettingsFrom(env: NodeJS.ProcessEnv): LogSettings {
  const level =
    levelOf(env.AWS_LAMBDA_LOG_LEVEL) ?? levelOf(env.POWERTOOLS_LOG_LEVEL) ?? LOG_DEFAULTS.level;
  return {
    level,
    service: nonEmpty(env.POWERTOOLS_SERVICE_NAME) ?? LOG_DEFAULTS.service,
    metricsNamespace: nonEmpty(env.POWERTOOLS_METRICS_NAMESPACE) ?? LOG_DEFAULTS.metricsNamespace,
  };
}

let current: LogSettings | undefined;

/** The container's settings, read on first use (the environment is fixed for a container). */
export function logSettings(): LogSettings {
  current ??= logSettingsFrom(process.env);
  return current;
}

/** Forgets the settings, so the next line reads the environment again (tests). */
export function resetLogSettings(): void {
  current = undefined;
}

function levelOf(value: string | undefined): Threshold | undefined {
  return value === undefined ? undefined : LEVEL_NAMES[value.trim().toLowerCase()];
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}
