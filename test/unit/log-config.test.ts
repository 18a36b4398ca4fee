// Lambda's and Powertools' logging conventions: where the level, the service name and the
// metrics namespace come from, and that a quiet log never drops a metric.
import { afterEach, describe, expect, it } from 'vitest';
import { log, setLogSink } from '../../functions/shared/log.js';
import {
  LOG_DEFAULTS,
  logSettingsFrom,
  resetLogSettings,
} from '../../functions/shared/log-config.js';
import { metricsFields } from '../../functions/shared/metrics.js';

describe('logSettingsFrom', () => {
  it('defaults to INFO, echomq-lambda and EchoMQ/Lambda', () => {
    expect(logSettingsFrom({})).toEqual(LOG_DEFAULTS);
    expect(LOG_DEFAULTS).toEqual({
      level: 'info',
      service: 'echomq-lambda',
      metricsNamespace: 'EchoMQ/Lambda',
    });
  });

  it('takes AWS_LAMBDA_LOG_LEVEL over POWERTOOLS_LOG_LEVEL', () => {
    expect(
      logSettingsFrom({ AWS_LAMBDA_LOG_LEVEL: 'WARN', POWERTOOLS_LOG_LEVEL: 'DEBUG' }).level,
    ).toBe('warn');
    expect(logSettingsFrom({ POWERTOOLS_LOG_LEVEL: 'debug' }).level).toBe('debug');
  });

  it.each([
    ['TRACE', 'debug'],
    ['FATAL', 'error'],
    ['CRITICAL', 'error'],
    ['SILENT', 'silent'],
  ])('reads %s as %s', (name, level) => {
    expect(logSettingsFrom({ AWS_LAMBDA_LOG_LEVEL: name }).level).toBe(level);
  });

  it('falls through an unknown level name to the next source', () => {
    expect(
      logSettingsFrom({ AWS_LAMBDA_LOG_LEVEL: 'loud', POWERTOOLS_LOG_LEVEL: 'ERROR' }).level,
    ).toBe('error');
  });

  it('takes the service name and metrics namespace from the Powertools variables', () => {
    const settings = logSettingsFrom({
      POWERTOOLS_SERVICE_NAME: 'orders-ingest',
      POWERTOOLS_METRICS_NAMESPACE: 'Shop/Ingest',
    });
    expect(settings).toMatchObject({ service: 'orders-ingest', metricsNamespace: 'Shop/Ingest' });
  });
});

describe('log', () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
    resetLogSettings();
  });

  function capture(): Record<string, unknown>[] {
    const lines: Record<string, unknown>[] = [];
    setLogSink((line) => lines.push(JSON.parse(line) as Record<string, unknown>));
    return lines;
  }

  it('drops lines below the level but keeps their metrics, in the Powertools namespace', () => {
    process.env.AWS_LAMBDA_LOG_LEVEL = 'WARN';
    process.env.POWERTOOLS_METRICS_NAMESPACE = 'Shop/Ingest';
    resetLogSettings();
    const lines = capture();
    log(
      'info',
      'quiet',
      { id: 'x' },
      metricsFields({ Face: 'http' }, [{ name: 'Requests', value: 1, unit: 'Count' }]),
    );
    log('debug', 'quieter');
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toHaveProperty('message');
    expect(lines[0]).toMatchObject({ Face: 'http', Requests: 1 });
    expect(JSON.stringify(lines[0])).toContain('"Namespace":"Shop/Ingest"');
  });

  it('writes the service name on every line', () => {
    process.env.POWERTOOLS_SERVICE_NAME = 'orders-ingest';
    resetLogSettings();
    const lines = capture();
    log('warn', 'loud');
    expect(lines[0]).toMatchObject({ level: 'warn', message: 'loud', service: 'orders-ingest' });
  });
});
