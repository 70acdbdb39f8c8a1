import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { makeAudioSamples, type AudioSamples } from '../helpers/audio-samples.ts';
import { assertPlatformError } from '../helpers/error-assertions.ts';
import { postForm, type FormEntry } from '../helpers/multipart-form.ts';
import { parseSseBody } from '../helpers/sse-events.ts';
import { startTestPlatform, type TestPlatform } from '../helpers/test-platform.ts';
import { writeTinyWhisperModel } from '../helpers/tiny-whisper-ggml.ts';

const url = '/paas/v4/audio/transcriptions';
const model: FormEntry = ['model', 'glm-asr-2512'];

// The tiny model's weights are random: what it writes is noise, so these tests check that real
// speech goes through whisper.cpp end to end (decoding, both formats, streaming), never the words.
describe('POST /paas/v4/audio/transcriptions on the in-process whisper-cpp engine', () => {
  let samples: AudioSamples;
  let test: TestPlatform;
  before(async () => {
    samples = await makeAudioSamples('Hello there, the weather is fine today.');
    test = await startTestPlatform({ config: { models: { 'glm-asr-2512': { backend: 'whisper-cpp', modelPath: writeTinyWhisperModel(), threads: 1 } } } });
  });
  after(() => test.close());

  it('transcribes a wav file, then an mp3, with a prompt and hotwords', async () => {
    for (const [bytes, name] of [
      [samples.wav, 'speech.wav'],
      [samples.mp3, 'speech.mp3'],
    ] as const) {
      const response = await postForm(test, url, [model, ['prompt', 'Earlier.'], ['hotwords[]', 'GLM'], ['file', bytes, name]]);
      assert.equal(response.statusCode, 200, response.body);
      const body = response.json() as { text: unknown; model: unknown };
      assert.equal(body.model, 'glm-asr-2512');
      assert.equal(typeof body.text, 'string');
      assert.ok((body.text as string).length > 0, 'whisper.cpp wrote some text for the speech');
    }
  });

  it('refuses a model file that is not a ggml Whisper file, naming the format', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'not-whisper-'));
    const modelPath = join(directory, 'model.bin');
    writeFileSync(modelPath, 'not a whisper model');
    const broken = await startTestPlatform({ config: { models: { 'glm-asr-2512': { backend: 'whisper-cpp', modelPath } } } });
    try {
      assertPlatformError(await postForm(broken, url, [model, ['file', samples.wav, 'speech.wav']]), {
        status: 400,
        code: '1221',
        mentions: ['ggml Whisper file'],
      });
    } finally {
      await broken.close();
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it('streams the transcript as deltas that add up to the done text', async () => {
    const response = await postForm(test, url, [model, ['stream', 'true'], ['file', samples.wav, 'speech.wav']]);
    assert.equal(response.statusCode, 200, response.body);
    const events = parseSseBody(response.body);
    const done = events.at(-1);
    assert.equal(done?.['type'], 'transcript.text.done', response.body);
    const deltas = events.slice(0, -1).map((event) => event['delta']);
    assert.ok(deltas.length > 0, response.body);
    assert.equal(deltas.join(''), done?.['text']);
    assert.ok(String(done?.['text']).length > 0);
  });
});

describe('glm-asr-2512 with no config file', () => {
  let test: TestPlatform;
  before(async () => {
    test = await startTestPlatform();
  });
  after(() => test.close());

  it('is served by whisper.cpp on Whisper base from the hub, and says so until the file is downloaded', async () => {
    const samples = await makeAudioSamples('hello');
    assertPlatformError(await postForm(test, url, [model, ['file', samples.wav, 'speech.wav']]), {
      status: 400,
      code: '1221',
      mentions: ['hf://ggerganov/whisper.cpp/ggml-base.bin'],
    });
  });
});
