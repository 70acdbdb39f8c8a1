import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { createOpenAiTranscriptionBackend } from '../../src/backends/openai-transcription/openai-transcription.backend.ts';
import { promptWithHotwords } from '../../src/core/media/whisper-prompt.ts';
import type { OpenAiTranscriptionSettings } from '../../src/backends/openai-transcription/openai-transcription-settings.ts';
import type { TranscriptionRequest } from '../../src/core/media/transcriber.ts';
import { probeAudio } from '../../src/tools/media/audio-probe.ts';
import { unusedResources } from '../helpers/backend-resources.ts';
import { makeAudioSamples, type AudioSamples } from '../helpers/audio-samples.ts';
import { startFakeOpenAiTranscriptionServer, type FakeOpenAiTranscriptionServer } from '../helpers/fake-openai-transcription-server.ts';
import { assertEngineFailure, rejection } from '../helpers/api-error-assertions.ts';

const spoken = 'the quick brown fox';
let engine: FakeOpenAiTranscriptionServer;
let samples: AudioSamples;

before(async () => {
  [engine, samples] = await Promise.all([startFakeOpenAiTranscriptionServer(spoken), makeAudioSamples(spoken)]);
});
after(() => engine.close());
beforeEach(() => engine.reset());

function transcriber(entry: Partial<OpenAiTranscriptionSettings> = {}, withKey = true) {
  const backend = createOpenAiTranscriptionBackend({
    modelName: 'my-asr',
    entry: { backend: 'openai-transcription', baseUrl: `${engine.baseUrl}/`, ...(withKey ? { apiKey: 'engine-key' } : {}), ...entry },
    configDir: '.',
    resources: unusedResources,
  });
  assert.ok(backend.transcribe !== undefined);
  assert.equal(backend.chat, undefined);
  return backend.transcribe;
}

function request(overrides: Partial<TranscriptionRequest> = {}): TranscriptionRequest {
  return { model: 'my-asr', audio: { bytes: samples.wav, format: 'wav' }, hotwords: [], signal: new AbortController().signal, ...overrides };
}

describe('audio probe', () => {
  it('reads format and duration from the bytes of real wav and mp3 files', async () => {
    const wav = await probeAudio(samples.wav);
    const mp3 = await probeAudio(samples.mp3);
    assert.equal(wav?.format, 'wav');
    assert.equal(mp3?.format, 'mp3');
    assert.ok(wav !== undefined && wav.durationSeconds > 0.5 && wav.durationSeconds < 5, String(wav?.durationSeconds));
    assert.ok(mp3 !== undefined && Math.abs(mp3.durationSeconds - wav.durationSeconds) < 0.2, String(mp3?.durationSeconds));
    assert.ok(Math.abs(((await probeAudio(samples.longWav))?.durationSeconds ?? 0) - 31) < 0.01);
    assert.ok(Math.abs(((await probeAudio(samples.longMp3))?.durationSeconds ?? 0) - 31) < 0.2);
  });

  it('counts mp3 frames when there is no Xing/Info tag', async () => {
    const tag = samples.mp3.indexOf('Info') >= 0 ? samples.mp3.indexOf('Info') : samples.mp3.indexOf('Xing');
    assert.ok(tag > 0, 'ffmpeg writes an Info tag');
    const untagged = Buffer.from(samples.mp3);
    untagged.write('None', tag, 'latin1');
    const walked = (await probeAudio(untagged))?.durationSeconds ?? 0;
    // The tag frame itself is then counted as audio: one frame (26 ms) more.
    assert.ok(Math.abs(walked - ((await probeAudio(samples.mp3))?.durationSeconds ?? 0)) < 0.05, String(walked));
  });

  it('refuses random bytes, text and a truncated WAV header', async () => {
    const random = Buffer.alloc(8192);
    for (let index = 0; index < random.length; index++) random[index] = (index * 7919 + 13) % 251;
    assert.equal(await probeAudio(random), undefined);
    assert.equal(await probeAudio(Buffer.from('RIFF....WAVEfmt fake audio bytes')), undefined);
    assert.equal(await probeAudio(Buffer.from('just some text, certainly not audio')), undefined);
    assert.equal(await probeAudio(samples.wav.subarray(0, 30)), undefined);
  });
});

describe('openai-transcription backend', () => {
  it('posts the audio, model, prompt and hotwords as multipart and returns the text', async () => {
    const result = await transcriber({ upstreamModel: 'openai/whisper-small' }).transcribe(request({ prompt: 'Earlier words.', hotwords: ['Zhipu', 'GLM'] }));
    assert.deepEqual(result, { text: spoken });
    const [call] = engine.received;
    assert.equal(call?.path, '/v1/audio/transcriptions');
    assert.equal(call.authorization, 'Bearer engine-key');
    assert.deepEqual(call.file?.bytes, samples.wav);
    assert.equal(call.file?.type, 'audio/wav');
    assert.equal(call.file?.name, 'audio.wav');
    assert.deepEqual(call.fields['model'], ['openai/whisper-small']);
    assert.deepEqual(call.fields['response_format'], ['json']);
    assert.deepEqual(call.fields['prompt'], ['Earlier words. Zhipu, GLM']);
    assert.deepEqual(call.fields['hotwords'], ['Zhipu', 'GLM']);
  });

  it('sends mp3 as audio/mpeg, the public model name without upstreamModel, and no prompt when there is none', async () => {
    await transcriber({}, false).transcribe(request({ audio: { bytes: samples.mp3, format: 'mp3' } }));
    const [call] = engine.received;
    assert.equal(call?.file?.type, 'audio/mpeg');
    assert.equal(call.file?.name, 'audio.mp3');
    assert.deepEqual(call.file?.bytes, samples.mp3);
    assert.deepEqual(call.fields['model'], ['my-asr']);
    assert.equal(call.fields['prompt'], undefined);
    assert.equal(call.fields['hotwords'], undefined);
    assert.equal(call.authorization, undefined);
  });

  it('folds hotwords into the prompt', () => {
    assert.equal(promptWithHotwords(undefined, []), undefined);
    assert.equal(promptWithHotwords('', []), undefined);
    assert.equal(promptWithHotwords('Context.', []), 'Context.');
    assert.equal(promptWithHotwords(undefined, ['a', '', 'b']), 'a, b');
  });

  it("maps the engine's errors: 4xx with its message, 5xx, a missing text, unreachable", async () => {
    engine.answerWith(400, { error: { message: 'Invalid file format.' } });
    assertEngineFailure(await rejection(transcriber().transcribe(request())), 'rejected-input', 'my-asr', 'Invalid file format.');
    engine.answerWith(500, { detail: 'CUDA out of memory' });
    assertEngineFailure(await rejection(transcriber().transcribe(request())), 'engine-error', 'CUDA out of memory');
    engine.answerWith(200, { transcript: 'wrong field' });
    assertEngineFailure(await rejection(transcriber().transcribe(request())), 'bad-answer', 'text');
    const closed = createOpenAiTranscriptionBackend({
      modelName: 'my-asr',
      entry: { backend: 'openai-transcription', baseUrl: 'http://127.0.0.1:9/v1' },
      configDir: '.',
      resources: unusedResources,
    });
    assertEngineFailure(await rejection(closed.transcribe?.transcribe(request()) ?? Promise.resolve()), 'unreachable', 'my-asr');
  });

  it('gives up after timeoutMs and stops when the client aborts', async () => {
    engine.delayAnswers(2000);
    assertEngineFailure(await rejection(transcriber({ timeoutMs: 100 }).transcribe(request())), 'timeout', 'timeoutMs');
    const controller = new AbortController();
    const pending = transcriber().transcribe(request({ signal: controller.signal }));
    setTimeout(() => controller.abort(new Error('client gone')), 50);
    const error = await rejection(pending);
    assert.equal((error as Error).message, 'client gone');
  });
});
