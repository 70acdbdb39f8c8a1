import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { fakeLlamaServer } from '../helpers/fake-llama-server-replies.ts';
import { jsonReply, startFakeOpenAiServer, type FakeOpenAiServer } from '../helpers/fake-openai-server.ts';
import { sampleMp4, samplePng } from '../helpers/media-samples.ts';
import { postJson, startTestPlatform, type TestPlatform } from '../helpers/test-platform.ts';

interface Usage {
  prompt_tokens: number;
  image_tokens: number;
  video_tokens: number;
  total_tokens: number;
}

/**
 * Image and video tokens with engines that count: an engine whose count holds the media (llama.cpp's
 * input_tokens, the upstream platform) gives prompt_tokens, and the upstream its own split; vLLM
 * (whose /tokenize expands media in some versions only) is asked for the text alone and the media
 * are added by the GLM-V rule (a 640x480 PNG is 393 tokens, a 3 s 320x240 video 308).
 */
describe('POST /paas/v4/tokenizer: media with counting engines', () => {
  let engine: FakeOpenAiServer;
  let test: TestPlatform;
  let imagePart: Record<string, unknown>;
  let videoPart: Record<string, unknown>;
  before(async () => {
    engine = await startFakeOpenAiServer();
    const [png, mp4] = await Promise.all([samplePng(640, 480), sampleMp4(320, 240, 3)]);
    imagePart = { type: 'image_url', image_url: { url: `data:image/png;base64,${png.toString('base64')}` } };
    videoPart = { type: 'video_url', video_url: { url: `data:video/mp4;base64,${mp4.toString('base64')}` } };
    test = await startTestPlatform({
      config: {
        models: {
          'glm-4.6v': { backend: 'openai-compatible', baseUrl: engine.baseUrl, engine: 'llama.cpp', vision: true },
          'glm-4.5v': { backend: 'openai-compatible', baseUrl: engine.baseUrl, engine: 'vllm', vision: true },
          'glm-4.6v-flash': { backend: 'zai', baseUrl: `${engine.origin}/api/paas/v4`, apiKey: 'upstream-id.upstream-secret' },
        },
      },
    });
  });
  beforeEach(() => engine.reset());
  after(async () => {
    await test.close();
    await engine.close();
  });

  const messagesWith = (...media: Record<string, unknown>[]) => [{ role: 'user', content: [{ type: 'text', text: 'What is shown?' }, ...media] }];
  const count = async (model: string, messages: unknown): Promise<Usage> => {
    const response = await postJson(test, '/paas/v4/tokenizer', { model, messages });
    assert.equal(response.statusCode, 200, response.body);
    return (response.json() as { usage: Usage }).usage;
  };

  it("llama.cpp: prompt_tokens is the engine's count with the media in it, equal to the chat call's; the split by the rule", async () => {
    engine.setDefault(fakeLlamaServer());
    const messages = messagesWith(imagePart, videoPart);
    const usage = await count('glm-4.6v', messages);
    const chat = await postJson(test, '/paas/v4/chat/completions', { model: 'glm-4.6v', messages });
    assert.equal(chat.statusCode, 200, chat.body);
    const chatPromptTokens = (chat.json() as { usage: { prompt_tokens: number } }).usage.prompt_tokens;
    assert.deepEqual(usage, { prompt_tokens: chatPromptTokens, image_tokens: 393, video_tokens: 308, total_tokens: chatPromptTokens });
  });

  it('vLLM: the engine counts the text alone, and the media are added to it by the rule', async () => {
    engine.setDefault((request) => (request.path === '/tokenize' ? jsonReply({ count: 40, max_model_len: 8192, tokens: [] }) : jsonReply({}, 404)));
    const usage = await count('glm-4.5v', messagesWith(imagePart, videoPart));
    assert.deepEqual(usage, { prompt_tokens: 40 + 393 + 308, image_tokens: 393, video_tokens: 308, total_tokens: 40 + 393 + 308 });
    const sent = engine.requests.find((request) => request.path === '/tokenize')?.body['messages'];
    assert.deepEqual(sent, [{ role: 'user', content: [{ type: 'text', text: 'What is shown?' }] }], 'no image or video reaches vLLM /tokenize');
  });

  it('upstream platform: its prompt_tokens and its own image and video counts; a kind it leaves out by the rule', async () => {
    engine.enqueue(jsonReply({ id: 't1', created: 1, usage: { prompt_tokens: 1500, image_tokens: 1400, video_tokens: 0, total_tokens: 1500 } }));
    assert.deepEqual(await count('glm-4.6v-flash', messagesWith(imagePart)), { prompt_tokens: 1500, image_tokens: 1400, video_tokens: 0, total_tokens: 1500 });
    engine.enqueue(jsonReply({ id: 't2', created: 1, usage: { prompt_tokens: 2000, total_tokens: 2000 } }));
    assert.deepEqual(await count('glm-4.6v-flash', messagesWith(imagePart, videoPart)), {
      prompt_tokens: 2000,
      image_tokens: 393,
      video_tokens: 308,
      total_tokens: 2000,
    });
  });

  it('text only stays 0 image and 0 video tokens on every engine', async () => {
    engine.setDefault(fakeLlamaServer());
    const text = [{ role: 'user', content: 'Hello there' }];
    const llama = await count('glm-4.6v', text);
    assert.equal(llama.image_tokens + llama.video_tokens, 0);
    engine.setDefault(undefined);
    engine.enqueue(jsonReply({ id: 't3', created: 1, usage: { prompt_tokens: 9, image_tokens: 0, video_tokens: 0, total_tokens: 9 } }));
    assert.deepEqual(await count('glm-4.6v-flash', text), { prompt_tokens: 9, image_tokens: 0, video_tokens: 0, total_tokens: 9 });
  });
});
