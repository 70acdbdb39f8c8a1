import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { modelEntrySchema } from '../../src/backends/index.ts';
import { ConfigError } from '../../src/core/config/config-error.ts';
import type { ModelEntry } from '../../src/core/config/config.schema.ts';
import { parseConfigText } from '../../src/core/config/load-config.ts';
import { readSettings } from '../../src/core/config/settings.ts';

function configError(text: string, environment: NodeJS.ProcessEnv = {}): string {
  try {
    parseConfigText(text, 'config.yaml', environment, modelEntrySchema);
  } catch (error) {
    assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${String(error)}`);
    return error.message;
  }
  assert.fail('the config was accepted');
}

describe('config file', () => {
  it('accepts a catalog of every common engine kind with env interpolation', () => {
    const config = parseConfigText(
      [
        'models:',
        '  glm-4.7: { backend: openai-compatible, baseUrl: "http://gpu1:8000/v1", upstreamModel: zai-org/GLM-4.7 }',
        '  glm-4.5-flash: { backend: llama-cpp, modelPath: ./models/glm.gguf }',
        '  glm-4.6: { backend: zai, baseUrl: "https://api.z.ai/api/paas/v4", apiKey: "${ZAI_API_KEY}" }',
        '  glm-ocr: { backend: paddle-ocr }',
        '  search-prime: { backend: local-index }',
        '  cogview-4-250304: { backend: comfyui, baseUrl: "http://gpu2:8188", workflow: ./workflows/cogview4.json }',
        '  glm-asr-2512: { backend: openai-transcription, baseUrl: "http://gpu3:8000/v1", timeoutMs: 60000, maxConcurrency: 2 }',
        'fetch: { allow: [10.0.0.0/8, intranet.example] }',
      ].join('\n'),
      'config.yaml',
      { ZAI_API_KEY: 'abc.def' },
      modelEntrySchema,
    );
    assert.equal((config.models?.['glm-4.6'] as ModelEntry | undefined)?.['apiKey'], 'abc.def');
    assert.equal((config.models?.['glm-ocr'] as ModelEntry | undefined)?.backend, 'paddle-ocr');
    assert.deepEqual(config.fetch?.allow, ['10.0.0.0/8', 'intranet.example']);
  });

  it('accepts a price table: integer micro-units and decimal strings, one currency', () => {
    const config = parseConfigText(
      'billing:\n  currency: EUR\n  prices:\n    glm-4.7: { perCall: 100, perPromptToken: "0.15", perCompletionToken: 2.5 }\n    glm-ocr: { perPage: 1500 }',
      'config.yaml',
      {},
      modelEntrySchema,
    );
    assert.equal(config.billing?.currency, 'EUR');
    assert.deepEqual(config.billing?.prices?.['glm-4.7'], { perCall: 100, perPromptToken: '0.15', perCompletionToken: 2.5 });
  });

  it('accepts an empty file', () => {
    assert.deepEqual(parseConfigText('', 'config.yaml', {}, modelEntrySchema), {});
  });

  const cases: [string, string, readonly string[]][] = [
    ['an unknown backend', 'models:\n  glm-4.7: { backend: magic }', ['models.glm-4.7.backend', 'openai-compatible']],
    ['a misspelt option', 'models:\n  glm-4.7: { backend: zai, baseURL: "http://x" }', ['models.glm-4.7.baseURL']],
    ['a baseUrl that is not http', 'models:\n  glm-4.7: { backend: zai, baseUrl: "ftp://x" }', ['models.glm-4.7.baseUrl']],
    ['a missing backend', 'models:\n  glm-4.7: { baseUrl: "http://x" }', ['models.glm-4.7', 'backend']],
    ['a negative timeout', 'models:\n  glm-4.7: { backend: zai, timeoutMs: -1 }', ['models.glm-4.7.timeoutMs']],
    ['an unknown top-level key', 'modles: {}', ['modles']],
    ['a fetch allow that is not a list', 'fetch: { allow: 10.0.0.0/8 }', ['fetch.allow']],
    ['an unset environment variable', 'models:\n  glm-4.6: { backend: zai, apiKey: "${NOT_SET_ANYWHERE}" }', ['models.glm-4.6.apiKey', 'NOT_SET_ANYWHERE']],
    ['broken YAML', 'models: [', ['not valid YAML']],
    ['a misspelt price field', 'billing:\n  prices:\n    glm-4.7: { perCal: 100 }', ['billing.prices.glm-4.7.perCal']],
    ['a negative price', 'billing:\n  prices:\n    glm-4.7: { perCall: -1 }', ['billing.prices.glm-4.7.perCall']],
    ['a price string that is not a decimal', 'billing:\n  prices:\n    glm-4.7: { perPromptToken: "1e-3" }', ['billing.prices.glm-4.7.perPromptToken']],
    ['a price with more than 6 decimals', 'billing:\n  prices:\n    glm-4.7: { perPromptToken: "0.0000001" }', ['billing.prices.glm-4.7.perPromptToken']],
    ['a currency that is not an ISO code', 'billing: { currency: dollars }', ['billing.currency']],
  ];
  for (const [name, text, mentions] of cases) {
    it(`names the bad key for ${name}`, () => {
      const message = configError(text);
      assert.ok(message.startsWith('config.yaml: '), message);
      for (const word of mentions) assert.ok(message.includes(word), `'${message}' should mention ${word}`);
    });
  }
});

describe('start-up settings', () => {
  it('has the documented defaults', () => {
    const settings = readSettings({});
    assert.equal(settings.port, 8080);
    // Loopback until HOST says otherwise: a fresh server and its admin key stay off the network.
    assert.equal(settings.host, '127.0.0.1');
    assert.ok(settings.dataDir.endsWith('/data'));
    assert.equal(settings.databaseUrl, undefined);
    assert.equal(settings.configPath, undefined);
    assert.equal(settings.modelFiles.directory, `${settings.dataDir}/models`);
    assert.equal(settings.modelFiles.endpoint, 'https://huggingface.co');
    assert.equal(settings.pullOnStart, true);
  });

  it('reads the models directory, the hub and the pull switch', () => {
    const settings = readSettings({
      HF_ENDPOINT: 'http://mirror.local:8080/',
      HF_TOKEN: 'hf_x',
      MODEL_PLATFORM_MODELS_DIR: '/srv/models',
      MODEL_PLATFORM_PULL: 'off',
    });
    assert.deepEqual(settings.modelFiles, { directory: '/srv/models', endpoint: 'http://mirror.local:8080', token: 'hf_x' });
    assert.equal(settings.pullOnStart, false);
    assert.throws(() => readSettings({ MODEL_PLATFORM_PULL: 'later' }), /MODEL_PLATFORM_PULL: must be on or off/);
    assert.throws(() => readSettings({ HF_ENDPOINT: 'mirror' }), /HF_ENDPOINT: is not an http\(s\) URL/);
  });

  it('reads the environment and lets flags win', () => {
    const settings = readSettings(
      {
        PORT: '9000',
        HOST: '127.0.0.1',
        MODEL_PLATFORM_DATA_DIR: '/tmp/x',
        MODEL_PLATFORM_CONFIG: 'a.yaml',
        DATABASE_URL: 'postgres://u:p@h/db',
        MODEL_PLATFORM_BOOTSTRAP_KEY: 'id.secret',
      },
      { config: '/etc/b.yaml', port: '9001' },
    );
    assert.equal(settings.port, 9001);
    assert.equal(settings.host, '127.0.0.1');
    assert.equal(settings.dataDir, '/tmp/x');
    assert.equal(settings.configPath, '/etc/b.yaml');
    assert.equal(settings.databaseUrl, 'postgres://u:p@h/db');
    assert.equal(settings.bootstrapKey, 'id.secret');
  });

  const bad: [string, NodeJS.ProcessEnv, string][] = [
    ['a port that is not a number', { PORT: 'http' }, 'PORT'],
    ['a bootstrap key without a dot', { MODEL_PLATFORM_BOOTSTRAP_KEY: 'nodot' }, 'MODEL_PLATFORM_BOOTSTRAP_KEY'],
    ['a database URL that is not PostgreSQL', { DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
  ];
  for (const [name, environment, variable] of bad) {
    it(`refuses ${name}`, () => {
      assert.throws(
        () => readSettings(environment),
        (error: unknown) => error instanceof ConfigError && error.message.includes(variable),
      );
    });
  }
});
