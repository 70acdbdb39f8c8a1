import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { UsageRecord } from '../../src/core/usage/usage-record.ts';
import { startFakeOpenAiImagesServer, type FakeOpenAiImagesServer } from '../helpers/fake-openai-images-server.ts';
import { startFakeOpenAiTranscriptionServer, type FakeOpenAiTranscriptionServer } from '../helpers/fake-openai-transcription-server.ts';
import { startFakeWeb, type FakeWeb } from '../helpers/fake-web.ts';
import { samplePng } from '../helpers/media-samples.ts';
import { startMediaTestPlatform, waitForTask } from '../helpers/media-test-platform.ts';
import { postForm } from '../helpers/multipart-form.ts';
import { digitalPdf } from '../helpers/rendered-documents.ts';
import { pdfPage } from '../helpers/sample-documents.ts';
import { parseSseBody } from '../helpers/sse-events.ts';
import { postJson, type TestPlatform } from '../helpers/test-platform.ts';

/** A mono 16-bit PCM WAV of silence lasting `seconds` at 8 kHz (its duration is read from the header). */
function silentWav(seconds: number): Buffer {
  const sampleRate = 8000;
  const data = Buffer.alloc(Math.round(seconds * sampleRate) * 2);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVEfmt ', 8, 'latin1');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'latin1');
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}

describe('the routes record what each completed call did in the usage ledger', () => {
  let test: TestPlatform;
  let web: FakeWeb;
  let images: FakeOpenAiImagesServer;
  let transcription: FakeOpenAiTranscriptionServer;
  let png: Buffer;
  let keyId: string;
  before(async () => {
    [web, images, transcription, png] = await Promise.all([
      startFakeWeb(),
      startFakeOpenAiImagesServer(),
      startFakeOpenAiTranscriptionServer('hello'),
      samplePng(16, 16),
    ]);
    test = await startMediaTestPlatform({
      fetch: { allow: ['127.0.0.1'] },
      models: {
        'glm-image': { backend: 'openai-images', baseUrl: images.baseUrl },
        'my-painter': { backend: 'openai-images', baseUrl: images.baseUrl },
        'my-asr': { backend: 'openai-transcription', baseUrl: transcription.baseUrl },
      },
    });
    keyId = test.key.split('.')[0] ?? '';
  });
  after(async () => {
    await test.close();
    await Promise.all([web.close(), images.close(), transcription.close()]);
  });

  /**
   * The key's ledger rows of one request, once the recorder has written `count` of them or `waitMs`
   * passed (tasks record from their worker, just after their row says SUCCESS).
   */
  const recordsOf = async (requestId: string, count = 1, waitMs = 5_000): Promise<UsageRecord[]> => {
    const until = Date.now() + waitMs;
    for (;;) {
      await test.platform.usage.flush();
      const records = (await test.platform.ledger.listForKey(keyId)).filter((record) => record.requestId === requestId);
      if (records.length >= count || Date.now() > until) return records;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };
  const noUnits = { pages: 0, audioSeconds: 0, images: 0, videos: 0, searches: 0, urlsRead: 0 };
  const summary = (record: UsageRecord | undefined) => ({
    model: record?.model,
    endpoint: record?.endpoint,
    tokens: [record?.promptTokens, record?.completionTokens],
    units: record?.units,
  });

  it('web_search: one search', async () => {
    const response = await postJson(test, '/paas/v4/web_search', { search_engine: 'search-prime', search_query: 'glaciers', request_id: 'usage-search' });
    assert.equal(response.statusCode, 200, response.body);
    const records = await recordsOf('usage-search');
    assert.deepEqual(records.map(summary), [{ model: 'search-prime', endpoint: 'web_search', tokens: [0, 0], units: { ...noUnits, searches: 1 } }]);
  });

  it('reader: one URL read', async () => {
    const response = await postJson(test, '/paas/v4/reader', { url: web.url('/blog/article.html'), request_id: 'usage-reader' });
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual((await recordsOf('usage-reader')).map(summary), [
      { model: 'web-reader', endpoint: 'reader', tokens: [0, 0], units: { ...noUnits, urlsRead: 1 } },
    ]);
  });

  it('layout_parsing: the pages parsed (data_info.num_pages), under the model name the engines know', async () => {
    const pdf = await digitalPdf([pdfPage.page, pdfPage.page, pdfPage.page]);
    const response = await postJson(test, '/paas/v4/layout_parsing', { model: 'GLM-OCR', file: pdf.toString('base64'), request_id: 'usage-layout' });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal((response.json() as { data_info: { num_pages: number } }).data_info.num_pages, 3);
    assert.deepEqual((await recordsOf('usage-layout')).map(summary), [
      { model: 'glm-ocr', endpoint: 'layout_parsing', tokens: [0, 0], units: { ...noUnits, pages: 3 } },
    ]);
  });

  it('audio transcriptions: the seconds of audio, sync and streamed; a failed call records nothing', async () => {
    const sync = await postForm(test, '/paas/v4/audio/transcriptions', [
      ['model', 'my-asr'],
      ['request_id', 'usage-audio'],
      ['file', silentWav(2.5), 'a.wav', 'audio/wav'],
    ]);
    assert.equal(sync.statusCode, 200, sync.body);
    const streamed = await postForm(test, '/paas/v4/audio/transcriptions', [
      ['model', 'my-asr'],
      ['stream', 'true'],
      ['request_id', 'usage-audio-stream'],
      ['file', silentWav(1.25), 'b.wav', 'audio/wav'],
    ]);
    assert.equal(streamed.statusCode, 200, streamed.body);
    assert.ok(parseSseBody(streamed.body).length > 0);
    transcription.answerWith(500, { error: { message: 'engine down' } });
    const failed = await postForm(test, '/paas/v4/audio/transcriptions', [
      ['model', 'my-asr'],
      ['request_id', 'usage-audio-failed'],
      ['file', silentWav(1), 'c.wav', 'audio/wav'],
    ]);
    assert.notEqual(failed.statusCode, 200);
    const audio = { model: 'my-asr', endpoint: 'audio.transcriptions', tokens: [0, 0] };
    assert.deepEqual((await recordsOf('usage-audio')).map(summary), [{ ...audio, units: { ...noUnits, audioSeconds: 2.5 } }]);
    assert.deepEqual((await recordsOf('usage-audio-stream')).map(summary), [{ ...audio, units: { ...noUnits, audioSeconds: 1.25 } }]);
    assert.deepEqual(await recordsOf('usage-audio-failed', 1, 0), [], 'routes record before they answer');
  });

  it('images: the images of a sync call, and of an async task once, when it SUCCEEDs; a failed task records nothing', async () => {
    images.reply({ kind: 'b64', images: [png] });
    const sync = await postJson(test, '/paas/v4/images/generations', { model: 'my-painter', prompt: 'a fox', request_id: 'usage-image' });
    assert.equal(sync.statusCode, 200, sync.body);
    assert.deepEqual((await recordsOf('usage-image')).map(summary), [
      { model: 'my-painter', endpoint: 'images.generations', tokens: [0, 0], units: { ...noUnits, images: 1 } },
    ]);

    images.reply({ kind: 'b64', images: [png] }, { kind: 'error', status: 400, message: 'unsafe prompt' });
    const submitted = await postJson(test, '/paas/v4/async/images/generations', { model: 'glm-image', prompt: 'a fox', request_id: 'usage-task' });
    assert.equal(submitted.statusCode, 200, submitted.body);
    assert.equal((await waitForTask(test, (submitted.json() as { id: string }).id)).task_status, 'SUCCESS');
    const failing = await postJson(test, '/paas/v4/async/images/generations', { model: 'glm-image', prompt: 'a fox', request_id: 'usage-task-failed' });
    assert.equal((await waitForTask(test, (failing.json() as { id: string }).id)).task_status, 'FAIL');
    assert.deepEqual((await recordsOf('usage-task')).map(summary), [
      { model: 'glm-image', endpoint: 'async.images.generations', tokens: [0, 0], units: { ...noUnits, images: 1 } },
    ]);
    assert.deepEqual(await recordsOf('usage-task-failed', 1, 500), []);
  });
});
