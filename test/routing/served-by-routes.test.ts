import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { DeploymentEntry, RoutedModelEntry } from '../../src/core/config/config.schema.ts';
import { deploymentHeader, fallbackModelHeader } from '../../src/http/served-by-headers.ts';
import { makeAudioSamples, type AudioSamples } from '../helpers/audio-samples.ts';
import { jsonReply, startFakeOpenAiServer, type FakeOpenAiServer } from '../helpers/fake-openai-server.ts';
import { startFakeOpenAiImagesServer, type FakeOpenAiImagesServer } from '../helpers/fake-openai-images-server.ts';
import { startFakeOpenAiTranscriptionServer, type FakeOpenAiTranscriptionServer } from '../helpers/fake-openai-transcription-server.ts';
import { startMediaTestPlatform } from '../helpers/media-test-platform.ts';
import { samplePng } from '../helpers/media-samples.ts';
import { postForm } from '../helpers/multipart-form.ts';
import { parseSseBody } from '../helpers/sse-events.ts';
import { postJson, type TestPlatform } from '../helpers/test-platform.ts';
import { freePort } from '../tasks/task-test-kit.ts';

type Answer = Awaited<ReturnType<typeof postJson>>;

/**
 * Each route that answers from an engine call names the deployment that served it: for every
 * capability, a model whose first deployment (by priority) is a closed port and whose second,
 * `live`, answers; and a model with only the dead deployment that falls back to the first.
 */
describe('the served-by headers on every route that answers from a routed engine', () => {
  let test: TestPlatform & { readonly dataDir: string };
  let images: FakeOpenAiImagesServer;
  let counter: FakeOpenAiServer;
  let transcriber: FakeOpenAiTranscriptionServer;
  let searxng: Server;
  let samples: AudioSamples;
  let png: Buffer;

  before(async () => {
    const deadPort = await freePort();
    const dead = `http://127.0.0.1:${deadPort}`;
    [images, counter, transcriber, samples, png] = await Promise.all([
      startFakeOpenAiImagesServer(),
      startFakeOpenAiServer(),
      startFakeOpenAiTranscriptionServer('hello there'),
      makeAudioSamples('hello there'),
      samplePng(8, 8),
    ]);
    counter.setDefault((request) => (request.path === '/tokenize' ? jsonReply({ count: 12, max_model_len: 8192, tokens: [] }) : jsonReply({ data: [] })));
    searxng = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ results: [{ url: 'https://www.example.net/a', title: 'A', content: 'About A' }] }));
    });
    searxng.listen(0, '127.0.0.1');
    await once(searxng, 'listening');
    const searxngUrl = `http://127.0.0.1:${(searxng.address() as AddressInfo).port}`;

    /** The dead deployment first, then the live one, in priority order; and a model on the dead one alone that falls back to it. */
    const routed = (live: DeploymentEntry, deadUrl: string): { served: RoutedModelEntry; spare: RoutedModelEntry } => ({
      served: {
        routing: 'priority',
        deployments: [
          { ...live, baseUrl: deadUrl, priority: 0 },
          { ...live, name: 'live', priority: 1 },
        ],
      },
      spare: { deployments: [{ ...live, baseUrl: deadUrl }] },
    });
    const painter = routed({ backend: 'openai-images', baseUrl: images.baseUrl, upstreamModel: 'dall-e-3' }, `${dead}/v1`);
    const tokens = routed({ backend: 'openai-compatible', baseUrl: counter.baseUrl, upstreamModel: 'fake/glm', engine: 'vllm' }, `${dead}/v1`);
    const asr = routed({ backend: 'openai-transcription', baseUrl: transcriber.baseUrl, upstreamModel: 'whisper-small' }, `${dead}/v1`);
    const search = routed({ backend: 'searxng', baseUrl: searxngUrl }, dead);
    test = await startMediaTestPlatform({
      models: {
        'my-painter': painter.served,
        'my-painter-spare': { ...painter.spare, fallbacks: ['my-painter'] },
        'glm-4.7': tokens.served,
        'glm-4.6': { ...tokens.spare, fallbacks: ['glm-4.7'] },
        'my-asr': asr.served,
        'my-asr-spare': { ...asr.spare, fallbacks: ['my-asr'] },
        'my-searxng': search.served,
        'search-spare': { ...search.spare, fallbacks: ['my-searxng'] },
      },
    });
  });
  after(async () => {
    await test.close();
    searxng.close();
    await Promise.all([images.close(), counter.close(), transcriber.close(), once(searxng, 'close')]);
  });

  /** Each capability's call, for the model named. */
  const calls: Record<string, (model: string) => Promise<Answer>> = {
    'POST /images/generations': (model) => {
      images.reply({ kind: 'b64', images: [png] });
      return postJson(test, '/paas/v4/images/generations', { model, prompt: 'a red fox' });
    },
    'POST /tokenizer': (model) => postJson(test, '/paas/v4/tokenizer', { model, messages: [{ role: 'user', content: 'Hello' }] }),
    'POST /audio/transcriptions': (model) =>
      postForm(test, '/paas/v4/audio/transcriptions', [
        ['model', model],
        ['file', samples.wav, 'speech.wav'],
      ]),
    'POST /audio/transcriptions (stream)': (model) =>
      postForm(test, '/paas/v4/audio/transcriptions', [
        ['model', model],
        ['stream', 'true'],
        ['file', samples.wav, 'speech.wav'],
      ]),
    'POST /web_search': (model) => postJson(test, '/paas/v4/web_search', { search_engine: model, search_query: 'glacier' }),
  };
  const models: Record<string, readonly [served: string, spare: string]> = {
    'POST /images/generations': ['my-painter', 'my-painter-spare'],
    'POST /tokenizer': ['glm-4.7', 'glm-4.6'],
    'POST /audio/transcriptions': ['my-asr', 'my-asr-spare'],
    'POST /audio/transcriptions (stream)': ['my-asr', 'my-asr-spare'],
    'POST /web_search': ['my-searxng', 'search-spare'],
  };

  for (const [route, call] of Object.entries(calls)) {
    const [served, spare] = models[route] as readonly [string, string];
    it(`${route}: the live deployment is named after the dead one failed; a fallback names its model too`, async () => {
      const answer = await call(served);
      assert.equal(answer.statusCode, 200, answer.body);
      if (route.endsWith('(stream)')) assert.equal(parseSseBody(answer.body).at(-1)?.['type'], 'transcript.text.done', answer.body);
      assert.equal(answer.headers[deploymentHeader], 'live');
      assert.equal(answer.headers[fallbackModelHeader], undefined);

      const fallenBack = await call(spare);
      assert.equal(fallenBack.statusCode, 200, fallenBack.body);
      assert.equal(fallenBack.headers[deploymentHeader], 'live');
      assert.equal(fallenBack.headers[fallbackModelHeader], served);
    });
  }
});
