import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ModelFiles } from '../../src/platform/model-files/model-files.ts';
import type { DownloadProgress } from '../../src/platform/model-files/download-hub-file.ts';
import { startFakeHub, type FakeHub } from '../helpers/fake-hugging-face-hub.ts';

// Over two of the downloader's 5 MiB chunks, so a cut after the first leaves a whole chunk to keep.
const weights = randomBytes(12 * 1024 * 1024 + 17);
const uri = 'hf://tiny-org/tiny-model-gguf/model.Q4_K_M.gguf';

describe('model files from a Hugging Face hub', () => {
  let directory: string;
  before(() => {
    directory = mkdtempSync(join(tmpdir(), 'model-files-'));
  });
  after(() => rmSync(directory, { recursive: true, force: true }));

  async function withHub<T>(
    options: Omit<Parameters<typeof startFakeHub>[0], 'files'> & { servedBytes?: Buffer },
    run: (hub: FakeHub, files: ModelFiles) => Promise<T>,
  ): Promise<T> {
    const hub = await startFakeHub({
      ...options,
      files: [{ repo: 'tiny-org/tiny-model-gguf', file: 'model.Q4_K_M.gguf', bytes: weights, servedBytes: options.servedBytes }],
    });
    try {
      return await run(hub, new ModelFiles({ directory: mkdtempSync(join(directory, 'models-')), endpoint: hub.endpoint, token: options.token }));
    } finally {
      await hub.close();
    }
  }

  it('pulls a file through the CDN redirect, reporting progress, and places it under its final name', async () => {
    await withHub({}, async (hub, files) => {
      const progress: DownloadProgress[] = [];
      const path = await files.fetch(uri, (step) => progress.push(step));
      assert.deepEqual(readFileSync(path), weights);
      assert.ok(progress.length > 0);
      assert.equal(progress.at(-1)?.downloadedBytes, weights.length);
      assert.equal(progress.at(-1)?.totalBytes, weights.length);
      assert.deepEqual(readdirSync(dirname(path)), ['model.Q4_K_M.gguf']);
      assert.ok(hub.hubRequests.some((line) => line.startsWith('HEAD /tiny-org/tiny-model-gguf/resolve/main/model.Q4_K_M.gguf')));
      const [status] = files.statuses();
      assert.equal(status?.state, 'ready');
      assert.equal(status?.bytes, weights.length);
      assert.equal(status?.uri, `${uri}@main`);
    });
  });

  it('resumes a download whose connection was cut, with a range request', async () => {
    await withHub({ cutFirstTransferAfter: 7 * 1024 * 1024 }, async (hub, files) => {
      const path = await files.fetch(uri).catch(() => files.fetch(uri));
      assert.deepEqual(readFileSync(path), weights);
      assert.ok(
        hub.cdnRanges.some((range) => range !== undefined && /^bytes=[1-9]\d*-/.test(range)),
        `a later request asks for the rest: ${JSON.stringify(hub.cdnRanges)}`,
      );
    });
  });

  it("refuses a download whose SHA-256 is not the hub's, leaving nothing under the final name", async () => {
    const corrupted = Buffer.from(weights);
    corrupted[1000] = (corrupted[1000] ?? 0) ^ 0xff;
    await withHub({ servedBytes: corrupted }, async (_hub, files) => {
      await assert.rejects(files.fetch(uri), /SHA-256 .* is not the hub's .*deleted/);
      const [status] = files.statuses();
      assert.equal(status?.state, 'failed');
      assert.equal(existsSync(status?.path ?? ''), false);
      assert.deepEqual(readdirSync(dirname(status?.path ?? '')), []);
    });
  });

  it('explains a 401 (gated repository, HF_TOKEN) and sends the token when set', async () => {
    await withHub({ token: 'hf_secret' }, async (hub) => {
      const anonymous = new ModelFiles({ directory: mkdtempSync(join(directory, 'anonymous-')), endpoint: hub.endpoint, token: undefined });
      await assert.rejects(anonymous.fetch(uri), (error: Error) => {
        assert.match(error.message, /^hf:\/\/tiny-org\/tiny-model-gguf\/model\.Q4_K_M\.gguf@main: the hub refused access \(HTTP 401\).*HF_TOKEN/);
        return true;
      });
    });
    await withHub({ token: 'hf_secret' }, async (_hub, files) => {
      assert.deepEqual(readFileSync(await files.fetch(uri)), weights);
    });
  });

  it('explains a 404 and an unreachable hub, each naming the URI', async () => {
    await withHub({}, async (_hub, files) => {
      await assert.rejects(
        files.fetch('hf://tiny-org/tiny-model-gguf/missing.gguf'),
        /^HubFileError: hf:\/\/tiny-org\/tiny-model-gguf\/missing\.gguf@main: not found on the hub \(HTTP 404\)/,
      );
    });
    const offline = new ModelFiles({ directory: mkdtempSync(join(directory, 'offline-')), endpoint: 'http://127.0.0.1:9', token: undefined });
    await assert.rejects(offline.fetch(uri), /@main: cannot reach the hub at http:\/\/127\.0\.0\.1:9 \(ECONNREFUSED\)/);
  });

  it('refuses URIs that could leave the models directory', () => {
    const files = new ModelFiles({ directory, endpoint: 'http://127.0.0.1:9', token: undefined });
    for (const bad of ['hf://a/b/../c.gguf', 'hf://a/../b.gguf', 'hf://a/b/c.gguf@../x', 'hf://a/b', 'https://a/b/c']) {
      assert.throws(() => files.register(bad), /is not a Hugging Face file URI/, bad);
    }
  });
});
