// The settings table (src/settings/settings-table.ts) is the one source of every EMQ_* variable:
// these hold the facts its derivations rely on, and that loadConfig walks it row by row.
import { describe, expect, it } from 'vitest';
import { DEFAULTS, LIMITS, loadConfig } from '../../src/settings/config.js';
import { wholeNumber } from '../../src/settings/settings-parsers.js';
import {
  FIELDS,
  ROWS,
  SETTING_NAMES,
  SETTINGS,
  settingOfEnv,
  VARIABLES,
} from '../../src/settings/settings-table.js';

describe('the settings table', () => {
  it('gives every whole-number row bounds, and bounds to no other row', () => {
    for (const field of FIELDS) {
      const row = ROWS[field];
      expect(row.parse === wholeNumber, field).toBe(row.bounds !== undefined);
    }
    expect(Object.keys(LIMITS)).toEqual(FIELDS.filter((field) => ROWS[field].bounds));
  });

  it('keeps each default within its bounds, and names each variable once', () => {
    for (const field of FIELDS) {
      const { bounds } = ROWS[field];
      const value = DEFAULTS[field];
      if (bounds !== undefined && typeof value === 'number') {
        expect(value, field).toBeGreaterThanOrEqual(bounds.min);
        expect(value, field).toBeLessThanOrEqual(bounds.max);
      }
    }
    expect(new Set(VARIABLES).size).toBe(VARIABLES.length);
  });

  it("holds the construct's settings, each a number or a string with a default", () => {
    for (const name of SETTING_NAMES) {
      expect(['number', 'string'], name).toContain(typeof SETTINGS[name].default);
      expect(settingOfEnv(SETTINGS[name].env)).toBe(name);
    }
    // The cache and the queues set the rest: they are no setting of the construct.
    expect(settingOfEnv('EMQ_URL')).toBeUndefined();
    expect(settingOfEnv('EMQ_DLQ_URL')).toBeUndefined();
  });

  it('is what loadConfig walks in order: the first bad variable of the table is the one named', () => {
    const bad = { EMQ_IAM_AUTH: 'on', EMQ_URL: 'http://cache', EMQ_ACK_REPLICAS: 'x' };
    expect(() => loadConfig(bad)).toThrow(/^EMQ_URL is invalid/);
    expect(() => loadConfig({ ...bad, EMQ_URL: '' })).toThrow(/^EMQ_ACK_REPLICAS is invalid/);
    expect(Object.keys(loadConfig({}))).toEqual(FIELDS);
  });
});
