import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { assertPlatformError } from '../helpers/error-assertions.ts';
import { makeAudioSamples, type AudioSamples } from '../helpers/audio-samples.ts';
import { startFakeOpenAiTranscriptionServer, type FakeOpenAiTranscriptionServer } from '../helpers/fake-openai-transcription-server.ts';
import { postForm, type FormEntry } from '../helpers/multipart-form.ts';
import { parseSseBody } from '../helpers/sse-events.ts';
import { startTestPlatform, type TestPlatform } from '../helpers/test-platform.ts';

const url = '/paas/v4/audio/transcriptions';
const spoken = 'hello from the platform';
const model: FormEntry = ['model', 'my-asr'];

describe('POST /paas/v4/audio/transcriptions on an openai-transcription engine', () => {
  let engine: FakeOpenAiTranscriptionServer;
  let samples: AudioSamples;
  let test: TestPlatform;
  before(async () => {
    [engine, samples] = await Promise.all([startFakeOpenAiTranscriptionServer(spoken), makeAudioSamples(spoken)]);
    test = await startTestPlatform({
      config: { models: { 'my-asr': { backend: 'openai-transcription', baseUrl: engine.baseUrl, upstreamModel: 'whisper-small' } } },
    });
  });
  after(async () => {
    await test.close();
    await engine.close();
  });
  beforeEach(() => engine.reset());

  it('transcribes a wav file part, forwarding prompt and repeated hotwords[]', async () => {
    const response = await postForm(test, url, [
      model,
      ['prompt', 'Earlier.'],
      ['hotwords[]', 'Zhipu'],
      ['hotwords[]', 'GLM'],
      ['request_id', 'req-audio-123456'],
      ['file', samples.wav, 'speech.wav', 'audio/wav'],
    ]);
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json() as Record<string, unknown>;
    assert.deepEqual(Object.keys(body).sort(), ['created', 'id', 'model', 'request_id', 'text']);
    assert.equal(body['text'], spoken);
    assert.equal(body['model'], 'my-asr');
    assert.equal(body['request_id'], 'req-audio-123456');
    assert.equal(typeof body['created'], 'number');
    const [call] = engine.received;
    assert.deepEqual(call?.file?.bytes, samples.wav);
    assert.deepEqual(call.fields['model'], ['whisper-small']);
    assert.deepEqual(call.fields['hotwords'], ['Zhipu', 'GLM']);
    assert.deepEqual(call.fields['prompt'], ['Earlier. Zhipu, GLM']);
  });

  it('transcribes mp3 sent as file_base64, the format read from the bytes', async () => {
    const response = await postForm(test, url, [model, ['file_base64', `data:audio/mpeg;base64,${samples.mp3.toString('base64')}`]]);
    assert.equal(response.statusCode, 200, response.body);
    assert.equal((response.json() as { text: string }).text, spoken);
    assert.equal(engine.received[0]?.file?.type, 'audio/mpeg');
    assert.deepEqual(engine.received[0]?.file?.bytes, samples.mp3);
  });

  it('reads the format from the bytes, not the name: mp3 bytes named .wav go out as mp3', async () => {
    const response = await postForm(test, url, [model, ['file', samples.mp3, 'speech.wav', 'audio/wav']]);
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(engine.received[0]?.file?.type, 'audio/mpeg');
  });

  it('refuses audio over 30 seconds, wav and mp3, without calling the engine', async () => {
    for (const form of [
      [model, ['file', samples.longWav, 'long.wav']],
      [model, ['file', samples.longMp3, 'long.mp3']],
      [model, ['file_base64', samples.longWav.toString('base64')]],
    ] satisfies FormEntry[][]) {
      assertPlatformError(await postForm(test, url, form), { status: 400, code: '1214', mentions: ['30 s'] });
    }
    assert.equal(engine.received.length, 0);
  });

  it('refuses corrupt audio named .wav without calling the engine', async () => {
    const random = Buffer.alloc(4000);
    for (let index = 0; index < random.length; index++) random[index] = (index * 7919 + 13) % 251;
    assertPlatformError(await postForm(test, url, [model, ['file', random, 'speech.wav', 'audio/wav']]), {
      status: 400,
      code: '1214',
      mentions: ['file', 'WAV or MP3'],
    });
    assert.equal(engine.received.length, 0);
  });

  it('streams the text as exact frames: delta, done with the full text, [DONE]', async () => {
    const response = await postForm(test, url, [model, ['stream', 'true'], ['file', samples.wav, 'speech.wav']]);
    assert.equal(response.statusCode, 200);
    assert.match(String(response.headers['content-type']), /^text\/event-stream/);
    const events = parseSseBody(response.body);
    assert.equal(events.length, 2);
    const [delta, done] = events;
    assert.deepEqual(Object.keys(delta ?? {}), ['id', 'created', 'model', 'type', 'delta']);
    assert.deepEqual(
      { type: delta?.['type'], delta: delta?.['delta'], model: delta?.['model'] },
      { type: 'transcript.text.delta', delta: spoken, model: 'my-asr' },
    );
    assert.deepEqual(Object.keys(done ?? {}), ['id', 'created', 'model', 'type', 'delta', 'text']);
    assert.deepEqual({ type: done?.['type'], delta: done?.['delta'], text: done?.['text'] }, { type: 'transcript.text.done', delta: '', text: spoken });
    assert.equal(done?.['id'], delta?.['id']);
    const expected = `data: ${JSON.stringify(delta)}\n\ndata: ${JSON.stringify(done)}\n\ndata: [DONE]\n\n`;
    assert.equal(response.body, expected);
  });

  it('answers an engine failure before the first frame with a real status, for stream and not', async () => {
    engine.answerWith(400, { error: { message: 'Audio too noisy.' } });
    for (const stream of ['true', 'false']) {
      const response = await postForm(test, url, [model, ['stream', stream], ['file', samples.wav, 'speech.wav']]);
      assertPlatformError(response, { status: 400, code: '1214', mentions: ['Audio too noisy.'] });
    }
    engine.answerWith(503, { error: { message: 'loading' } });
    assertPlatformError(await postForm(test, url, [model, ['file', samples.wav, 'speech.wav']]), { status: 500, code: '1234', mentions: ['loading'] });
  });
});
