// The client's payload cap is a copy of the service's `maxPayloadBytes` row (client/checks.ts
// says why it is a copy): the row decides, and this test holds the copy to it.
import { describe, expect, it } from 'vitest';
import { PAYLOAD_CAP } from '../../client/checks.js';
import { SETTINGS } from '../../src/settings/settings-table.js';

describe("the client's payload cap", () => {
  it("is the service's maxPayloadBytes row: its variable, default and bounds", () => {
    const row = SETTINGS.maxPayloadBytes;
    expect(PAYLOAD_CAP).toEqual({ env: row.env, default: row.default, bounds: row.bounds });
  });
});
