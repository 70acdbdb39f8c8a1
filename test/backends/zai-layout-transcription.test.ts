import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { makeAudioSamples, type AudioSamples } from '../helpers/audio-samples.ts';
import { jsonReply, startFakeOpenAiServer, type FakeOpenAiServer } from '../helpers/fake-openai-server.ts';
import { startFakeOpenAiTranscriptionServer, type FakeOpenAiTranscriptionServer } from '../helpers/fake-openai-transcription-server.ts';
import { postForm } from '../helpers/multipart-form.ts';
import { renderPagePng } from '../helpers/rendered-documents.ts';
import { singleColumn } from '../helpers/sample-documents.ts';
import { parseSseBody } from '../helpers/sse-events.ts';
import { postJson, startTestPlatform, type TestPlatform } from '../helpers/test-platform.ts';

const upstreamLayout = {
  id: 'task-1',
  created: 1_727_156_815,
  model: 'GLM-OCR',
  md_results: '# Title\n\n![](https://cdn.example/crop-1.png)',
  layout_details: [
    [
      { index: 0, label: 'text', bbox_2d: [0.1, 0.05, 0.6, 0.1], content: '# Title', width: 1000, height: 620 },
      { index: 1, label: 'image', bbox_2d: [0.2, 0.3, 0.8, 0.9], content: 'https://cdn.example/crop-1.png', width: 1000, height: 620 },
    ],
  ],
  layout_visualization: ['https://cdn.example/layout-1.png'],
  data_info: { num_pages: 1, pages: [{ width: 1000, height: 620 }] },
  usage: { prompt_tokens: 120, completion_tokens: 30, total_tokens: 150 },
  request_id: 'upstream-request',
};

describe('zai backend: layout parsing and transcription on the upstream platform', () => {
  let layoutEngine: FakeOpenAiServer;
  let asrEngine: FakeOpenAiTranscriptionServer;
  let samples: AudioSamples;
  let test: TestPlatform;
  before(async () => {
    [layoutEngine, asrEngine, samples] = await Promise.all([
      startFakeOpenAiServer(),
      startFakeOpenAiTranscriptionServer('upstream words'),
      makeAudioSamples('upstream words'),
    ]);
    test = await startTestPlatform({
      config: {
        models: {
          'glm-ocr': { backend: 'zai', baseUrl: layoutEngine.baseUrl, apiKey: 'upstream-key' },
          'glm-asr-2512': { backend: 'zai', baseUrl: asrEngine.baseUrl, apiKey: 'upstream-key' },
        },
      },
    });
  });
  after(async () => {
    await test.close();
    await Promise.all([layoutEngine.close(), asrEngine.close()]);
  });
  beforeEach(() => asrEngine.reset());

  it('sends the document up as base64 with the platform fields and maps the answer back', async () => {
    layoutEngine.enqueue(jsonReply(upstreamLayout));
    const png = await renderPagePng(singleColumn.page);
    const response = await postJson(test, '/paas/v4/layout_parsing', {
      model: 'GLM-OCR',
      file: png.toString('base64'),
      return_crop_images: true,
      need_layout_visualization: true,
      start_page_id: 1,
      end_page_id: 2,
      request_id: 'layout-zai-1',
    });
    assert.equal(response.statusCode, 200, response.body);
    const sent = layoutEngine.requests.at(-1);
    assert.equal(sent?.path, '/v1/layout_parsing');
    assert.equal(sent?.headers.authorization, 'Bearer upstream-key');
    assert.deepEqual(
      { ...sent?.body, file: undefined },
      {
        model: 'glm-ocr',
        file: undefined,
        need_layout_visualization: true,
        return_crop_images: true,
        start_page_id: 1,
        end_page_id: 2,
      },
    );
    assert.equal(sent?.body['file'], png.toString('base64'));
    const body = response.json() as Record<string, unknown>;
    assert.equal(body['md_results'], upstreamLayout.md_results);
    assert.equal(body['request_id'], 'layout-zai-1');
    assert.deepEqual(body['layout_details'], upstreamLayout.layout_details);
    assert.deepEqual(body['layout_visualization'], upstreamLayout.layout_visualization);
    assert.deepEqual(body['data_info'], upstreamLayout.data_info);
    assert.deepEqual(body['usage'], { prompt_tokens: 120, completion_tokens: 30, prompt_tokens_details: { cached_tokens: 0 }, total_tokens: 150 });
  });

  it('passes the upstream error code on', async () => {
    layoutEngine.enqueue(jsonReply({ error: { code: '1214', message: 'file: unsupported' } }, 400));
    const response = await postJson(test, '/paas/v4/layout_parsing', { model: 'glm-ocr', file: (await renderPagePng(singleColumn.page)).toString('base64') });
    assert.equal(response.statusCode, 400);
    assert.deepEqual(response.json(), { error: { code: '1214', message: 'file: unsupported' } });
  });

  it('transcribes with prompt and hotwords as the platform fields', async () => {
    const response = await postForm(test, '/paas/v4/audio/transcriptions', [
      ['model', 'glm-asr-2512'],
      ['prompt', 'Earlier.'],
      ['hotwords', 'Zhipu'],
      ['hotwords', 'GLM'],
      ['file', samples.wav, 'speech.wav', 'audio/wav'],
    ]);
    assert.equal(response.statusCode, 200, response.body);
    assert.equal((response.json() as { text: string }).text, 'upstream words');
    const [call] = asrEngine.received;
    assert.equal(call?.authorization, 'Bearer upstream-key');
    assert.deepEqual(call?.fields, { model: ['glm-asr-2512'], prompt: ['Earlier.'], hotwords: ['Zhipu', 'GLM'] });
    assert.deepEqual(call?.file?.bytes, samples.wav);
  });

  it('relays the upstream transcript stream as delta frames, then done and [DONE]', async () => {
    const frame = (delta: string) => ({ id: 'u1', created: 1, model: 'glm-asr-2512', type: 'transcript.text.delta', delta });
    asrEngine.answerWithEvents([frame('upstream '), frame('words'), { id: 'u1', created: 1, model: 'glm-asr-2512', type: 'transcript.text.done', delta: '' }]);
    const response = await postForm(test, '/paas/v4/audio/transcriptions', [
      ['model', 'glm-asr-2512'],
      ['stream', 'true'],
      ['file', samples.mp3, 'speech.mp3', 'audio/mpeg'],
    ]);
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(asrEngine.received[0]?.fields['stream'], ['true']);
    const events = parseSseBody(response.body);
    assert.deepEqual(events.map((event) => [event['type'], event['delta']]).slice(0, 2), [
      ['transcript.text.delta', 'upstream '],
      ['transcript.text.delta', 'words'],
    ]);
    assert.equal(events.at(-1)?.['type'], 'transcript.text.done');
  });
});
