import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { modelEntrySchema } from '../../src/backends/index.ts';
import { ConfigError } from '../../src/core/config/config-error.ts';
import { parseConfigText } from '../../src/core/config/load-config.ts';
import { readSettings } from '../../src/core/config/settings.ts';
import { runCli } from '../helpers/cli-process.ts';

/** Configuration errors reach container logs: they name the key and the problem, never the value. */
const secret = 'sk-live-0123456789SECRET';

function messageOf(action: () => unknown): string {
  try {
    action();
  } catch (error) {
    assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${String(error)}`);
    return error.message;
  }
  assert.fail('the configuration was accepted');
}

describe('configuration errors never print values', () => {
  const files: [string, string, string][] = [
    ['a misspelled apiKey', `models:\n  glm-4.6: { backend: zai, apikey: "${secret}" }`, 'models.glm-4.6.apikey'],
    ['an apiKey of the wrong type', `models:\n  glm-4.6: { backend: zai, apiKey: { value: "${secret}" } }`, 'models.glm-4.6.apiKey'],
    ['a secret in a baseUrl that is not http', `models:\n  glm-4.6: { backend: zai, baseUrl: "ftp://user:${secret}@host" }`, 'models.glm-4.6.baseUrl'],
    ['a secret as an unknown top-level key value', `credentials: "${secret}"`, 'credentials'],
    ['a secret on a line YAML cannot parse', `models:\n  glm-4.6: { backend: zai, apiKey: ${secret}: x }`, 'line 2'],
    ['a secret interpolated from the environment', 'models:\n  glm-4.6: { backend: zai, apikey: "${ZAI_API_KEY}" }', 'models.glm-4.6.apikey'],
  ];
  for (const [name, text, key] of files) {
    it(`names the key, not the value, for ${name}`, () => {
      const message = messageOf(() => parseConfigText(text, 'config.yaml', { ZAI_API_KEY: secret }, modelEntrySchema));
      assert.ok(message.includes(key), `'${message}' should name ${key}`);
      assert.ok(!message.includes(secret) && !message.includes('SECRET'), `'${message}' shows the value`);
    });
  }

  const variables: [string, string][] = [
    ['PORT', secret],
    ['MODEL_PLATFORM_PUBLIC_URL', `ftp://${secret}`],
    ['S3_ENDPOINT', `ftp://user:${secret}@minio`],
    ['MODEL_PLATFORM_BLOB_URL_TTL', secret],
  ];
  for (const [variable, value] of variables) {
    it(`names ${variable}, not its value`, () => {
      const message = messageOf(() => readSettings({ S3_BUCKET: 'bucket', [variable]: value }));
      assert.ok(message.includes(variable), message);
      assert.ok(!message.includes(secret), `'${message}' shows the value`);
    });
  }

  const dataDir = mkdtempSync(join(tmpdir(), 'config-secrets-'));
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('config check and serve print the key, never the value', async () => {
    const bad = join(dataDir, 'bad.yaml');
    writeFileSync(bad, `models:\n  glm-4.6: { backend: zai, apikey: "${secret}" }\n`);
    for (const args of [
      ['config', 'check', '--config', bad],
      ['serve', '--config', bad],
    ]) {
      const result = await runCli(args, { MODEL_PLATFORM_DATA_DIR: join(dataDir, 'data'), PORT: '0' });
      assert.equal(result.code, 1, result.stderr);
      assert.match(result.stderr, /models\.glm-4\.6\.apikey/);
      assert.ok(!`${result.stdout}${result.stderr}`.includes(secret), `${args[0]} printed the value: ${result.stderr}`);
    }
  });
});
