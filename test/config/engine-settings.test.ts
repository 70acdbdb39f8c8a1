import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { modelEntrySchema } from '../../src/backends/index.ts';
import { closestKey } from '../../src/core/config/closest-key.ts';
import { ConfigError } from '../../src/core/config/config-error.ts';
import { parseConfigText } from '../../src/core/config/load-config.ts';

function problemsOf(text: string, environment: NodeJS.ProcessEnv = {}): readonly string[] {
  try {
    parseConfigText(text, 'config.yaml', environment, modelEntrySchema);
  } catch (error) {
    assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${String(error)}`);
    assert.equal(error.message, error.problems.join('\n'));
    return error.problems;
  }
  assert.fail('the config was accepted');
}

/** Each engine kind with the settings its entry cannot do without, and a value for each. */
const requiredByKind: Record<string, Record<string, string>> = {
  'openai-compatible': { baseUrl: '"http://gpu1:8000/v1"' },
  'llama-cpp': { modelPath: './models/glm.gguf' },
  zai: { apiKey: 'a-key' },
  'openai-images': { baseUrl: '"http://gpu2:8000/v1"' },
  comfyui: { baseUrl: '"http://gpu2:8188"', workflow: './workflows/image.json' },
  'paddle-ocr': {},
  'glm-ocr': { baseUrl: '"http://gpu3:8000/v1"' },
  'openai-transcription': { baseUrl: '"http://gpu3:8000/v1"' },
  'whisper-cpp': { modelPath: './models/ggml-base.bin' },
  'local-index': {},
  searxng: { baseUrl: '"http://searxng:8080"' },
};

function entryLine(kind: string, settings: Record<string, string>): string {
  return `models:\n  my-model: { ${[`backend: ${kind}`, ...Object.entries(settings).map(([key, value]) => `${key}: ${value}`)].join(', ')} }`;
}

describe('engine settings: each backend kind with its own schema', () => {
  it('knows exactly the kinds of the engine table', () => {
    const kinds = modelEntrySchema.anyOf.map((settings) => (settings.properties['backend'] as { const?: unknown }).const);
    assert.deepEqual(kinds.sort(), Object.keys(requiredByKind).sort());
  });

  for (const [kind, required] of Object.entries(requiredByKind)) {
    it(`${kind}: accepts an entry with its required settings and refuses one without each, naming model, key and kind`, () => {
      assert.doesNotThrow(() => parseConfigText(entryLine(kind, required), 'config.yaml', {}, modelEntrySchema));
      for (const missing of Object.keys(required)) {
        const rest = Object.fromEntries(Object.entries(required).filter(([key]) => key !== missing));
        assert.deepEqual(problemsOf(entryLine(kind, rest)), [`config.yaml: key 'models.my-model.${missing}': is required by backend ${kind}`]);
      }
    });
  }

  it('refuses a setting another kind takes, naming the kind and what it does take', () => {
    assert.deepEqual(problemsOf('models:\n  glm-4.7: { backend: openai-images, baseUrl: "http://x", modelPath: ./m.gguf }'), [
      "config.yaml: key 'models.glm-4.7.modelPath': is not a setting of backend openai-images (known: baseUrl, apiKey, upstreamModel, timeoutMs, maxResponseBytes, maxConcurrency)",
    ]);
    assert.deepEqual(problemsOf('models:\n  search: { backend: local-index, timeoutMs: 5 }'), [
      "config.yaml: key 'models.search.timeoutMs': is not a setting of backend local-index (it takes none)",
    ]);
  });
});

describe('config problems: all at once, named, never a value', () => {
  const secret = 'sk-live-0123456789SECRET';

  it('reports three mistakes of one file together, in file order, and shows none of the values', () => {
    const problems = problemsOf(
      [
        'models:',
        `  glm-4.7: { backend: openai-compatible, baseurl: "http://gpu1:8000/v1", apiKey: "${secret}" }`,
        '  glm-4.5-flash: { backend: llama-cpp, threads: 2 }',
        `  glm-4.6: { backend: zai, apiKey: "\${ZAI_API_KEY}", upstream_model: "${secret}" }`,
      ].join('\n'),
      { ZAI_API_KEY: secret },
    );
    assert.deepEqual(problems, [
      "config.yaml: key 'models.glm-4.7.baseurl': is not a setting of backend openai-compatible; did you mean 'baseUrl'?",
      "config.yaml: key 'models.glm-4.5-flash.modelPath': is required by backend llama-cpp",
      "config.yaml: key 'models.glm-4.6.upstream_model': is not a setting of backend zai; did you mean 'upstreamModel'?",
    ]);
    assert.ok(!problems.join('\n').includes('SECRET'), problems.join('\n'));
  });

  it('reports an unset environment variable with the other problems, once for its key', () => {
    assert.deepEqual(problemsOf('models:\n  a: { backend: openai-compatible, baseUrl: "${ENGINE_URL}" }\n  b: { backend: zai }\nmodles: {}'), [
      "config.yaml: key 'models.a.baseUrl': environment variable ENGINE_URL is not set",
      "config.yaml: key 'models.b.apiKey': is required by backend zai",
      "config.yaml: key 'modles': is not a known key; did you mean 'models'?",
    ]);
  });
});

describe('did you mean', () => {
  const cases: [string, string, string][] = [
    [
      'another letter case',
      'models:\n  m: { backend: openai-compatible, baseurl: "http://x" }',
      "key 'models.m.baseurl': is not a setting of backend openai-compatible; did you mean 'baseUrl'?",
    ],
    ['snake case', 'models:\n  m: { backend: openai-compatible, baseUrl: "http://x", upstream_model: x }', "did you mean 'upstreamModel'?"],
    ['a unit left out', 'models:\n  m: { backend: comfyui, baseUrl: "http://x", workflow: w.json, timeout: 60000 }', "did you mean 'timeoutMs'?"],
    ['a swapped pair of letters', 'modles: {}', "key 'modles': is not a known key; did you mean 'models'?"],
    ['a misspelled backend key', 'models:\n  m: { backnd: zai }', "key 'models.m.backnd': is not a known key; did you mean 'backend'?"],
    ['a backend kind', 'models:\n  m: { backend: openai_compatible, baseUrl: "http://x" }', "did you mean 'openai-compatible'?"],
  ];
  for (const [name, text, expected] of cases) {
    it(`suggests the key for ${name}`, () => {
      const problems = problemsOf(text);
      assert.equal(problems.length, 1, problems.join('\n'));
      assert.ok(problems[0]?.includes(expected), `'${problems[0]}' should include "${expected}"`);
    });
  }

  it('suggests nothing when no allowed key is close', () => {
    assert.equal(closestKey('colour', ['baseUrl', 'apiKey', 'timeoutMs']), undefined);
    assert.equal(closestKey('key', ['apiKey']), undefined);
    assert.equal(closestKey('apikey', ['apiKey', 'baseUrl']), 'apiKey');
  });
});

describe('the table of engine settings in docs/configuration.md', () => {
  it('lists each kind with exactly the settings of its schema, the required ones in bold', () => {
    const readme = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
    const listed = new Map<string, { settings: string[]; required: string[] }>();
    for (const [, kinds = '', cells = ''] of readme.matchAll(/^\| (`[a-z-]+`(?:, `[a-z-]+`)*) \| (.*) \|$/gm)) {
      const settings = cells === 'none' ? [] : [...cells.matchAll(/\*{0,2}`([A-Za-z]+)`\*{0,2}(?: \(default [^)]*\))?/g)].map((match) => match[1] ?? '');
      const required = [...cells.matchAll(/\*\*`([A-Za-z]+)`\*\*/g)].map((match) => match[1] ?? '');
      for (const [, kind = ''] of kinds.matchAll(/`([a-z-]+)`/g)) listed.set(kind, { settings, required });
    }
    for (const schema of modelEntrySchema.anyOf) {
      const kind = String((schema.properties['backend'] as { const?: unknown }).const);
      const settings = Object.keys(schema.properties).filter((key) => key !== 'backend');
      assert.deepEqual(listed.get(kind)?.settings.sort(), settings.sort(), kind);
      assert.deepEqual(listed.get(kind)?.required.sort(), (schema.required ?? []).filter((key) => key !== 'backend').sort(), kind);
    }
  });
});
