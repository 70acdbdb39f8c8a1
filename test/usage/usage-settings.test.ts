import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError } from '../../src/core/config/config-error.ts';
import { readSettings } from '../../src/core/config/settings.ts';

describe('settings of the usage ledger and the task lease', () => {
  it('keep usage 400 days and lease tasks for 30 s by default; both can be set, 0 keeps usage forever', () => {
    const defaults = readSettings({});
    assert.deepEqual([defaults.usageRetentionDays, defaults.taskLeaseSeconds], [400, 30]);
    const set = readSettings({ MODEL_PLATFORM_USAGE_RETENTION_DAYS: '0', MODEL_PLATFORM_TASK_LEASE_SECONDS: '5' });
    assert.deepEqual([set.usageRetentionDays, set.taskLeaseSeconds], [0, 5]);
  });

  it('refuse values that are not whole numbers in range, naming the variable', () => {
    for (const [name, value] of [
      ['MODEL_PLATFORM_USAGE_RETENTION_DAYS', '-1'],
      ['MODEL_PLATFORM_USAGE_RETENTION_DAYS', '30d'],
      ['MODEL_PLATFORM_TASK_LEASE_SECONDS', '2'],
      ['MODEL_PLATFORM_TASK_LEASE_SECONDS', '1.5'],
    ] as const) {
      assert.throws(
        () => readSettings({ [name]: value }),
        (error: unknown) => error instanceof ConfigError && error.message.startsWith(`${name}: `) && !error.message.includes(`'${value}'`),
      );
    }
  });
});
