import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DeploymentHealth } from '../../src/core/routing/deployment-health.ts';
import { DeploymentPicker } from '../../src/core/routing/deployment-picker.ts';
import { EngineFailure } from '../../src/core/errors/engine-failure.ts';
import { isDeploymentFault, isFailoverEligible } from '../../src/core/routing/failover-eligible.ts';
import { EngineConnectionError } from '../../src/core/chat/engine-errors.ts';

const policy = { baseMs: 1000, maxMs: 4000, probeTimeoutMs: 100 };
const down = new EngineFailure('unreachable', 'm', 'connect ECONNREFUSED');

describe('deployment health without a probe (half-open)', () => {
  it('cools down with doubling, bounded backoff and lets one trial call through after each cool-down', () => {
    let now = 0;
    const health = new DeploymentHealth(policy, undefined, () => now);
    assert.equal(health.admit(), 'yes');
    health.failed(down);
    assert.equal(health.coolingUntil, 1000);
    health.failed(down); // a second call that was running when it failed: the same cool-down
    assert.equal(health.coolingUntil, 1000);
    assert.equal(health.admit(), 'no');
    now = 1000;
    assert.equal(health.admit(), 'trial');
    assert.equal(health.admit(), 'no', 'one trial at a time');
    health.failed(down, true);
    assert.equal(health.coolingUntil, 3000, 'the second failure in a row doubles the cool-down');
    now = 3000;
    assert.equal(health.admit(), 'trial');
    health.failed(down, true);
    now = 7000;
    assert.equal(health.admit(), 'trial');
    health.failed(down, true);
    assert.equal(health.coolingUntil, 11_000, 'bounded by maxMs');
    now = 11_000;
    assert.equal(health.admit(), 'trial');
    health.succeeded(true);
    assert.equal(health.healthy, true);
    assert.equal(health.consecutiveFailures, 0);
  });

  it('a call that began before the cool-down does not end it; an abandoned trial frees the trial', () => {
    let now = 0;
    const health = new DeploymentHealth(policy, undefined, () => now);
    health.failed(down);
    health.succeeded(false);
    assert.equal(health.healthy, false);
    now = 1000;
    assert.equal(health.admit(), 'trial');
    health.abandoned(true);
    assert.equal(health.admit(), 'trial');
  });
});

describe('deployment health with a probe', () => {
  it('is healthy again once the probe answers after the cool-down', async () => {
    let answers = false;
    const health = new DeploymentHealth({ baseMs: 20, maxMs: 40, probeTimeoutMs: 100 }, () =>
      answers ? Promise.resolve() : Promise.reject(new Error('refused')),
    );
    health.failed(down);
    await new Promise((resolve) => setTimeout(resolve, 40));
    assert.equal(health.healthy, false, 'the first probe failed');
    assert.equal(health.admit(), 'no', 'no trial calls while a probe decides');
    answers = true;
    await new Promise((resolve) => setTimeout(resolve, 120));
    assert.equal(health.healthy, true);
    health.close();
  });
});

describe('failover eligibility', () => {
  it('retries only failures where the engine produced nothing', () => {
    assert.equal(isFailoverEligible(down), true);
    assert.equal(isFailoverEligible(new EngineFailure('overloaded', 'm', '429')), true);
    assert.equal(isFailoverEligible(down.afterAnswerStarted()), false);
    assert.equal(isFailoverEligible(new EngineFailure('rejected-input', 'm', '400')), false);
    assert.equal(isFailoverEligible(new EngineFailure('context-too-long', 'm', 'long')), false);
    assert.equal(isFailoverEligible(new EngineConnectionError('broke')), false);
    assert.equal(isDeploymentFault(new EngineConnectionError('broke')), false, 'one cut stream does not cool a deployment down');
    assert.equal(isDeploymentFault(down.afterAnswerStarted()), true);
    assert.equal(isDeploymentFault(new EngineFailure('rejected-input', 'm', '400')), false);
  });
});

describe('the picker', () => {
  const candidate = (weight: number, priority = 0, inFlight = 0, maxConcurrency?: number) => ({ weight, priority, inFlight, maxConcurrency });

  it('weighted: exact shares over each round, interleaved', () => {
    const picker = new DeploymentPicker<ReturnType<typeof candidate>>('weighted');
    const pool = [candidate(1), candidate(2), candidate(3)];
    const picks = Array.from({ length: 600 }, () => pool.indexOf(picker.pick(pool) as ReturnType<typeof candidate>));
    assert.deepEqual(
      [0, 1, 2].map((index) => picks.filter((pick) => pick === index).length),
      [100, 200, 300],
    );
  });

  it('priority: the lowest priority with room; least-in-flight: the least busy', () => {
    assert.equal(new DeploymentPicker('priority').pick([candidate(1, 1), candidate(1, 0, 5, 5), candidate(1, 2)])?.priority, 1, 'the first is full');
    assert.equal(new DeploymentPicker('least-in-flight').pick([candidate(1, 0, 3), candidate(1, 1, 1), candidate(1, 2, 2)])?.priority, 1);
  });
});
