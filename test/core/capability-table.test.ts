import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Backend, BackendResources } from '../../src/core/backends/backend.ts';
import { ModelBackends } from '../../src/core/backends/model-backends.ts';
import type { CatalogEntry } from '../../src/core/config/config.schema.ts';
import type { EngineCallObserver } from '../../src/core/metrics/instrument-backend.ts';
import { capabilities, engineMethods } from '../../src/core/models/capability.ts';
import { ModelResolver } from '../../src/core/models/model-resolver.ts';
import { assertApiError } from '../helpers/api-error-assertions.ts';

interface EngineCall {
  readonly method: string;
  readonly request: unknown;
  readonly onItsMember: boolean;
}

/** An engine with every method of the table (less `leftOut`), each recording its call and answering its own name. */
function recordingEngine(calls: EngineCall[], leftOut: readonly string[] = []): Backend {
  const members = new Map<string, Record<string, unknown>>();
  for (const method of engineMethods) {
    const qualified = `${method.member}.${method.name}`;
    if (leftOut.includes(qualified)) continue;
    const member = members.get(method.member) ?? {};
    member[method.name] = function (this: unknown, request: unknown) {
      calls.push({ method: qualified, request, onItsMember: this === member });
      if (method.kind === 'call') return Promise.resolve(qualified);
      return (async function* () {
        yield qualified;
      })();
    };
    members.set(method.member, member);
  }
  return Object.fromEntries(members) as Backend;
}

async function readAll(parts: AsyncIterable<unknown>): Promise<unknown[]> {
  const read: unknown[] = [];
  for await (const part of parts) read.push(part);
  return read;
}

function modelBackends(engine: Backend, observer?: EngineCallObserver): ModelBackends {
  return new ModelBackends({
    models: new ModelResolver({ everything: { backend: 'recording' } as unknown as CatalogEntry }),
    factories: new Map([['recording', () => engine]]),
    loadTokenizerFiles: () => {
      throw new Error('the model has no tokenizer files');
    },
    resources: {} as BackendResources,
    ...(observer === undefined ? {} : { observer }),
  });
}

/** What `run` throws. */
function thrownBy(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return assert.fail('expected a throw');
}

describe('the capability table', () => {
  it('every method it lists reaches the engine through the routing and the metrics, called on its member', async () => {
    const calls: EngineCall[] = [];
    const observed: string[] = [];
    const backends = modelBackends(recordingEngine(calls), {
      engineCall: (model, capability) => observed.push(`${model} ${capability}`),
      engineError: () => assert.fail('no engine call fails here'),
    });
    try {
      for (const method of engineMethods) {
        const engine = backends.capability('everything', method.capability) as unknown as Record<string, (request: unknown) => unknown>;
        const request = { signal: new AbortController().signal, method: method.name };
        const answer = engine[method.name]?.(request);
        const answered = method.kind === 'call' ? [await (answer as Promise<unknown>)] : await readAll(answer as AsyncIterable<unknown>);
        assert.deepEqual(answered, [`${method.member}.${method.name}`]);
        assert.deepEqual(calls.at(-1), { method: `${method.member}.${method.name}`, request, onItsMember: true });
      }
      assert.equal(calls.length, engineMethods.length);
      assert.deepEqual(
        observed,
        engineMethods.map((method) => `everything ${method.capability}`),
      );
      const engineCapabilities = Object.keys(capabilities).filter((capability) => 'member' in capabilities[capability as keyof typeof capabilities]);
      assert.deepEqual([...new Set(engineMethods.map((method) => method.capability))], engineCapabilities, 'every engine capability has methods');
    } finally {
      await backends.close();
    }
  });

  it('an optional method the engine lacks stays absent; a capability it lacks is 1221', async () => {
    const backends = modelBackends(recordingEngine([], ['transcribe.stream', 'image.generate']));
    try {
      assert.equal(backends.capability('everything', 'transcribe').stream, undefined);
      assert.equal(typeof backends.capability('everything', 'transcribe').transcribe, 'function');
      assertApiError(
        thrownBy(() => backends.capability('everything', 'image')),
        '1221',
        "backend 'recording'",
        'image generation',
      );
    } finally {
      await backends.close();
    }
  });
});
