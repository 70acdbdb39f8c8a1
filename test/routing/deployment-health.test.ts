import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DeploymentHealth } from '../../src/core/routing/deployment-health.ts';
import { DeploymentPicker } from '../../src/core/routing/deployment-picker.ts';
import { DeploymentRouter, type RoutedDeployment } from '../../src/core/routing/deployment-router.ts';
import { InProcessDeploymentSlots } from '../../src/core/routing/deployment-slots.ts';
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

describe("the router's last resort when every deployment cools down", () => {
  /** A model without fallbacks on two half-open deployments, `first` before `second` by priority; `now` is the health clock. */
  function twoDeployments(clock: () => number) {
    const deployment = (name: string, priority: number): RoutedDeployment => ({
      name,
      kind: 'openai-compatible',
      backend: {},
      health: new DeploymentHealth(policy, undefined, clock),
      weight: 1,
      priority,
      maxConcurrency: undefined,
      inFlight: 0,
    });
    const [first, second] = [deployment('first', 0), deployment('second', 1)];
    const router = new DeploymentRouter('m', [first, second], { strategy: 'priority', fallbacks: [], maxAttempts: 3 }, new InProcessDeploymentSlots());
    const asked: string[] = [];
    /** One routed call; `answer` says how each deployment it reaches answers. */
    const call = (answer: (deployment: RoutedDeployment) => Promise<string>, signal = new AbortController().signal) =>
      router.call(
        signal,
        () => true,
        (chosen) => {
          asked.push(chosen.name);
          return answer(chosen);
        },
        () => undefined,
      );
    return { first, second, call, asked };
  }
  const fail = () => Promise.reject(down);

  it('is a trial: its answer ends the cool-down of the deployment it reached', async () => {
    let now = 0;
    const { first, second, call, asked } = twoDeployments(() => now);
    await assert.rejects(call(fail), down);
    assert.deepEqual([first.health.healthy, second.health.healthy], [false, false]);
    now = 500;
    assert.equal(await call(() => Promise.resolve('answer')), 'answer');
    assert.deepEqual(asked, ['first', 'second', 'first'], 'one last-resort call, to the cool-down that ends first');
    assert.equal(first.health.healthy, true, 'its answer ended the cool-down before it was due');
    assert.equal(first.health.consecutiveFailures, 0);
    assert.equal(second.health.healthy, false);
    now = 600;
    await call(() => Promise.resolve('again'));
    assert.deepEqual(asked.slice(3), ['first'], 'the healthy deployment is picked as usual');
  });

  it('is a trial: its failure makes the cool-down longer, and it holds no trial once it ended', async () => {
    let now = 0;
    const { first, second, call, asked } = twoDeployments(() => now);
    await assert.rejects(call(fail), down);
    now = 500;
    await assert.rejects(call(fail), down);
    assert.deepEqual(asked, ['first', 'second', 'first'], 'no second deployment after a failed last resort');
    assert.equal(first.health.consecutiveFailures, 2);
    assert.equal(first.health.coolingUntil, 2500, 'cooling from now, twice as long');
    assert.equal(second.health.coolingUntil, 1000, 'the one not tried is untouched');
    now = 2500;
    assert.equal(first.health.admit(), 'trial', 'the failed last resort left no trial running');
  });

  it('is a trial that leaves no verdict when its caller leaves', async () => {
    let now = 0;
    const { first, call } = twoDeployments(() => now);
    await assert.rejects(call(fail), down);
    now = 500;
    const leaving = new AbortController();
    await assert.rejects(
      call(() => {
        leaving.abort(new Error('the client closed the connection'));
        return Promise.reject(down);
      }, leaving.signal),
    );
    assert.equal(first.health.coolingUntil, 1000, 'no longer cool-down for a call its caller left');
    now = 1000;
    assert.equal(first.health.admit(), 'trial', 'and no trial held');
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

  it('an engine that refused for load is tried with a call, not the probe, and its cool-downs keep doubling', () => {
    let now = 0;
    let probes = 0;
    const health = new DeploymentHealth(
      policy,
      () => {
        probes += 1;
        return Promise.resolve();
      },
      () => now,
    );
    const busy = new EngineFailure('overloaded', 'm', 'too many requests');
    health.failed(busy);
    assert.equal(health.admit(), 'no');
    now = 1000;
    assert.equal(health.admit(), 'trial', 'a listing would answer while the engine has no room');
    health.failed(busy, true);
    assert.equal(health.coolingUntil, 3000, 'the second refusal in a row doubles the cool-down');
    now = 3000;
    assert.equal(health.admit(), 'trial');
    health.failed(down, true);
    assert.equal(health.admit(), 'no', "an engine that is down again is the probe's to decide");
    health.close();
    assert.equal(probes, 0);
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
