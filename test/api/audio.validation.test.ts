import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertPlatformError } from '../helpers/error-assertions.ts';
import { postForm, type FormEntry } from '../helpers/multipart-form.ts';
import { postJson, startTestPlatform, type TestPlatform } from '../helpers/test-platform.ts';

const url = '/paas/v4/audio/transcriptions';
const maxAudioBytes = 25 * 1024 * 1024;

/**
 * A WAV of `totalBytes` (silence) that declares `byteRate`: real enough for the platform's format
 * and 30-second checks, so a request reaches glm-asr-2512's engine, which with no config file is
 * whisper.cpp still waiting for its model file (1221).
 */
function silentWav(totalBytes: number, byteRate = 32_000): Buffer {
  const wav = Buffer.alloc(totalBytes);
  wav.write('RIFF', 0, 'latin1');
  wav.writeUInt32LE(totalBytes - 8, 4);
  wav.write('WAVEfmt ', 8, 'latin1');
  wav.writeUInt32LE(16, 16);
  const channels = 8;
  wav.writeUInt16LE(1, 20);
  wav.writeUInt16LE(channels, 22);
  wav.writeUInt32LE(byteRate / channels / 2, 24);
  wav.writeUInt32LE(byteRate, 28);
  wav.writeUInt16LE(channels * 2, 32);
  wav.writeUInt16LE(16, 34);
  wav.write('data', 36, 'latin1');
  wav.writeUInt32LE(totalBytes - 44, 40);
  return wav;
}

const audio = silentWav(3244);
const audioFile: FormEntry = ['file', audio, 'speech.wav', 'audio/wav'];
const model: FormEntry = ['model', 'glm-asr-2512'];
const base64Audio = audio.toString('base64');
const hotwords = (count: number, name = 'hotwords[]'): FormEntry[] => Array.from({ length: count }, (_, index) => [name, `word${index}`] as const);

/** Each case breaks one rule; the answer must name the field (1213 missing, 1214 invalid). */
const rejected: { name: string; form: FormEntry[]; code: string; field: string }[] = [
  { name: 'model missing', form: [audioFile], code: '1213', field: 'model' },
  { name: 'model sent twice with different values', form: [model, ['model', 'other'], audioFile], code: '1214', field: 'model' },
  { name: 'neither file nor file_base64', form: [model], code: '1213', field: 'file' },
  { name: 'file that is not wav or mp3', form: [model, ['file', audio, 'speech.ogg', 'audio/ogg']], code: '1214', field: 'file' },
  { name: 'file without extension and of another type', form: [model, ['file', audio, 'upload', 'application/octet-stream']], code: '1214', field: 'file' },
  { name: 'empty file', form: [model, ['file', Buffer.alloc(0), 'speech.wav']], code: '1214', field: 'file' },
  { name: 'file sent as a text field', form: [model, ['file', 'not a file']], code: '1214', field: 'file' },
  { name: 'two files', form: [model, audioFile, audioFile], code: '1214', field: 'file' },
  { name: 'file_base64 that is not base64', form: [model, ['file_base64', 'this is *not* base64!']], code: '1214', field: 'file_base64' },
  { name: 'file_base64 empty', form: [model, ['file_base64', '']], code: '1214', field: 'file_base64' },
  { name: 'prompt of 8001 characters', form: [model, audioFile, ['prompt', 'p'.repeat(8001)]], code: '1214', field: 'prompt' },
  { name: '101 repeated hotwords[] fields', form: [model, audioFile, ...hotwords(101)], code: '1214', field: 'hotwords' },
  { name: '101 repeated hotwords fields', form: [model, audioFile, ...hotwords(101, 'hotwords')], code: '1214', field: 'hotwords' },
  {
    name: 'hotwords as a JSON array of 101 items',
    form: [model, audioFile, ['hotwords', JSON.stringify(Array.from({ length: 101 }, (_, index) => `w${index}`))]],
    code: '1214',
    field: 'hotwords',
  },
  { name: 'stream not a boolean', form: [model, audioFile, ['stream', 'maybe']], code: '1214', field: 'stream' },
  { name: 'request_id too short', form: [model, audioFile, ['request_id', 'abc']], code: '1214', field: 'request_id' },
  { name: 'request_id too long', form: [model, audioFile, ['request_id', 'x'.repeat(65)]], code: '1214', field: 'request_id' },
  { name: 'user_id too short', form: [model, audioFile, ['user_id', 'u1']], code: '1214', field: 'user_id' },
  { name: 'user_id too long', form: [model, audioFile, ['user_id', 'u'.repeat(129)]], code: '1214', field: 'user_id' },
];

describe('POST /paas/v4/audio/transcriptions contract', () => {
  let test: TestPlatform;
  before(async () => {
    test = await startTestPlatform({ config: { models: { 'my-asr': { backend: 'openai-transcription', baseUrl: 'http://127.0.0.1:9/v1' } } } });
  });
  after(() => test.close());

  for (const testCase of rejected) {
    it(`rejects: ${testCase.name}`, async () => {
      const response = await postForm(test, url, testCase.form);
      assertPlatformError(response, { status: 400, code: testCase.code, mentions: [testCase.field] });
    });
  }

  it('rejects a body that is not multipart, naming the content type it takes', async () => {
    const response = await postJson(test, url, { model: 'glm-asr-2512', file_base64: base64Audio });
    assertPlatformError(response, { status: 400, code: '1210', mentions: ['multipart/form-data', 'application/json'] });
    const bare = await test.app.inject({ method: 'POST', url, headers: { authorization: test.authorization } });
    assertPlatformError(bare, { status: 400, code: '1210', mentions: ['multipart/form-data'] });
  });

  it('rejects a malformed multipart body with 1210', async () => {
    const headers = { authorization: test.authorization, 'content-type': 'multipart/form-data' };
    const response = await test.app.inject({ method: 'POST', url, headers, payload: 'model=glm-asr-2512' });
    assertPlatformError(response, { status: 400, code: '1210', mentions: ['multipart'] });
  });

  it('rejects a file of 25 MB + 1 byte, read under the limit while streaming, and accepts exactly 25 MB', async () => {
    const tooLarge = await postForm(test, url, [model, ['file', Buffer.alloc(maxAudioBytes + 1), 'long.wav']]);
    assertPlatformError(tooLarge, { status: 400, code: '1214', mentions: ['file', '25 MB', String(maxAudioBytes)] });
    const atLimit = await postForm(test, url, [model, ['file', silentWav(maxAudioBytes, 1_048_576), 'long.wav']]);
    assertPlatformError(atLimit, { status: 400, code: '1221', mentions: ['glm-asr-2512'] });
  });

  it('rejects file_base64 that decodes to more than 25 MB', async () => {
    const response = await postForm(test, url, [model, ['file_base64', Buffer.alloc(maxAudioBytes + 1).toString('base64')]]);
    assertPlatformError(response, { status: 400, code: '1214', mentions: ['file_base64', String(maxAudioBytes)] });
  });

  it('accepts a full request (SDK encodings, unknown fields ignored) and says its engine is not ready', async () => {
    const response = await postForm(test, url, [
      model,
      ['prompt', 'Earlier transcript.'],
      ...hotwords(100),
      ['stream', 'false'],
      ['request_id', 'req-audio-123456'],
      ['user_id', 'user-123456'],
      ['sensitive_word_check[type]', 'ALL'],
      ['sensitive_word_check[status]', 'DISABLE'],
      ['temperature', '0.2'],
      audioFile,
    ]);
    assertPlatformError(response, { status: 400, code: '1221', mentions: ['glm-asr-2512', 'hf://'] });
    assert.equal(response.headers['x-request-id'], 'req-audio-123456');
  });

  it('accepts hotwords as repeated plain fields and as one JSON array field', async () => {
    for (const form of [
      [model, audioFile, ...hotwords(3, 'hotwords')],
      [model, audioFile, ['hotwords', '["alpha","beta"]'] as const],
      [model, audioFile, ['hotwords', 'single'] as const],
    ]) {
      assertPlatformError(await postForm(test, url, form), { status: 400, code: '1221' });
    }
  });

  it('uses file when both file and file_base64 are sent (file_base64 is not even checked)', async () => {
    const response = await postForm(test, url, [model, ['file_base64', 'not base64 at all!'], audioFile]);
    assertPlatformError(response, { status: 400, code: '1221', mentions: ['glm-asr-2512'] });
  });

  it('accepts file_base64 alone, bare or as a data URL, and an mp3 file', async () => {
    for (const form of [
      [model, ['file_base64', base64Audio]],
      [model, ['file_base64', `data:audio/wav;base64,${base64Audio}`]],
      [model, ['file', audio, 'SONG.MP3', 'audio/mpeg']],
      [model, ['file', audio, 'upload', 'audio/mpeg']],
    ] satisfies FormEntry[][]) {
      assertPlatformError(await postForm(test, url, form), { status: 400, code: '1221', mentions: ['glm-asr-2512'] });
    }
  });

  it('answers 1211 for a model neither the platform nor the catalog knows', async () => {
    const response = await postForm(test, url, [['model', 'whisper-1'], audioFile]);
    assertPlatformError(response, { status: 400, code: '1211', mentions: ['whisper-1'] });
  });

  it('accepts a catalog model whose engine this build runs, and reads the audio before calling it', async () => {
    // Bytes that start like a WAV but hold no audio: refused before the (unreachable) engine.
    const response = await postForm(test, url, [
      ['model', 'my-asr'],
      ['file', Buffer.from('RIFF....WAVEfmt fake audio bytes'), 'speech.wav', 'audio/wav'],
    ]);
    assertPlatformError(response, { status: 400, code: '1214', mentions: ['file', 'WAV or MP3'] });
  });

  it('is served under every alias prefix', async () => {
    for (const prefix of ['/api/paas/v4', '/api/coding/paas/v4']) {
      const response = await postForm(test, `${prefix}/audio/transcriptions`, [model, audioFile, ['stream', 'maybe']]);
      assertPlatformError(response, { status: 400, code: '1214', mentions: ['stream'] });
    }
  });

  it('documents the multipart form in OpenAPI', async () => {
    const document = (await test.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
      paths: Record<string, { post: { requestBody: { content: Record<string, { schema: { properties: Record<string, { format?: string }> } }> } } }>;
    };
    const form = document.paths[url]?.post.requestBody.content['multipart/form-data'];
    assert.equal(form?.schema.properties['file']?.format, 'binary');
    assert.ok(form?.schema.properties['hotwords'] !== undefined);
  });
});
