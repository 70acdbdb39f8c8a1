import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import type { PlatformConfig } from '../../src/core/config/config.schema.ts';
import { assertPlatformError } from '../helpers/error-assertions.ts';
import { startFakeComfyUiServer, type FakeComfyUiServer } from '../helpers/fake-comfyui-server.ts';
import { startFakeOpenAiImagesServer, type FakeOpenAiImagesServer } from '../helpers/fake-openai-images-server.ts';
import { startFakeOpenAiServer, vllmCompletion, type FakeOpenAiServer } from '../helpers/fake-openai-server.ts';
import { startFakeWeb, type FakeWeb } from '../helpers/fake-web.ts';
import { startMediaTestPlatform } from '../helpers/media-test-platform.ts';
import { samplePng } from '../helpers/media-samples.ts';
import { postJson, type TestPlatform } from '../helpers/test-platform.ts';

/**
 * The SSRF battery: every field that takes a URL, given addresses inside the operator's network
 * in every spelling, schemes the platform does not fetch, and text a lenient parser repairs. Each
 * is refused with the platform's error, the engine is never called with it, and the target (a
 * loopback server standing for an internal service) receives no request.
 */

/** A loopback server that stands for an internal service: it counts every request it gets. */
interface Target {
  readonly port: number;
  readonly hits: () => number;
  close(): Promise<void>;
}

async function startTarget(body: Buffer): Promise<Target> {
  let hits = 0;
  const server: Server = createServer((_request, response) => {
    hits += 1;
    response.writeHead(200, { 'content-type': 'image/png' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    hits: () => hits,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Every way of writing "inside" that a URL field must refuse, aimed at the target's port where it has one. */
function hostileUrls(port: number): string[] {
  const path = `:${port}/secret.png`;
  return [
    // Forms the platform does not fetch itself: an engine given them would (file:, gopher:, a repaired URL).
    'file:///etc/passwd',
    `gopher://127.0.0.1${path}`,
    `ftp://127.0.0.1${path}`,
    `//127.0.0.1${path}`,
    ` http://127.0.0.1${path}`,
    `\thttp://127.0.0.1${path}`,
    `http://127.0.0.1${path} `,
    `http:\\\\127.0.0.1${path}`,
    `http:/127.0.0.1${path}`,
    `http://public.example@127.0.0.1${path}`,
    // Addresses inside, in every spelling the URL parser normalises.
    `http://127.0.0.1${path}`,
    `http://[::1]${path}`,
    `http://localhost${path}`,
    `http://0.0.0.0${path}`,
    `http://127.1${path}`,
    `http://2130706433${path}`,
    `http://0x7f.1${path}`,
    `http://[::ffff:127.0.0.1]${path}`,
    'http://10.0.0.1/secret.png',
    'http://192.168.1.1/secret.png',
    'http://172.16.0.1/secret.png',
    'http://169.254.169.254/latest/meta-data/',
  ];
}

const workflow = {
  '1': { class_type: 'LoadImage', inputs: { image: '{{image}}' } },
  '3': { class_type: 'CLIPTextEncode', inputs: { text: '{{prompt}}' } },
  '4': { class_type: 'WanImageToVideo', inputs: { width: '{{width}}', height: '{{height}}', length: '{{frames}}', start_image: ['1', 0] } },
  '6': { class_type: 'VHS_VideoCombine', inputs: { frame_rate: '{{fps}}', format: 'video/h264-mp4', images: ['4', 0] } },
};

/** One URL-taking field: how to send a URL in it, and the name the error must give it. */
interface UrlField {
  readonly name: string;
  readonly field: string;
  send(test: TestPlatform, url: string): Promise<LightMyRequestResponse>;
}

const chatPart = (type: 'image_url' | 'video_url' | 'file_url') => (test: TestPlatform, url: string) =>
  postJson(test, '/paas/v4/chat/completions', {
    model: 'glm-4.6v',
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is this?' },
          { type, [type]: { url } },
        ],
      },
    ],
  });

const fields: readonly UrlField[] = [
  { name: 'reader url', field: 'url', send: (test, url) => postJson(test, '/paas/v4/reader', { url }) },
  { name: 'chat image_url', field: 'messages[0].content[1].image_url.url', send: chatPart('image_url') },
  { name: 'chat video_url', field: 'messages[0].content[1].video_url.url', send: chatPart('video_url') },
  { name: 'chat file_url', field: 'messages[0].content[1].file_url.url', send: chatPart('file_url') },
  {
    name: 'tokenizer image_url',
    field: 'messages[0].content[1].image_url.url',
    send: (test, url) =>
      postJson(test, '/paas/v4/tokenizer', {
        model: 'glm-4.6v',
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'count' },
              { type: 'image_url', image_url: { url } },
            ],
          },
        ],
      }),
  },
  {
    name: 'video generation image_url',
    field: 'image_url',
    send: (test, url) => postJson(test, '/paas/v4/videos/generations', { model: 'cogvideox-3', image_url: url }),
  },
  {
    name: 'video generation image_url[1]',
    field: 'image_url[1]',
    send: (test, url) => postJson(test, '/paas/v4/videos/generations', { model: 'cogvideox-3', image_url: [dotPng, url] }),
  },
  { name: 'layout parsing file', field: 'file', send: (test, url) => postJson(test, '/paas/v4/layout_parsing', { model: 'glm-ocr', file: url }) },
  {
    name: 'effects-video agent image_url',
    field: 'messages[0].content[0].image_url',
    send: (test, url) =>
      postJson(test, '/v1/agents', {
        agent_id: 'vidu_template_agent',
        messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url } }] }],
        custom_variables: { template: 'bodyshake' },
      }),
  },
];

let dotPng = '';

describe('SSRF: URLs a client gives', () => {
  let target: Target;
  let web: FakeWeb;
  let chatEngine: FakeOpenAiServer;
  let comfy: FakeComfyUiServer;
  let directory: string;
  let closed: TestPlatform;
  let allowsLocalhost: TestPlatform;

  before(async () => {
    const png = await samplePng(16, 16);
    dotPng = `data:image/png;base64,${png.toString('base64')}`;
    [target, web, chatEngine, comfy] = await Promise.all([startTarget(png), startFakeWeb(), startFakeOpenAiServer(), startFakeComfyUiServer()]);
    chatEngine.setDefault({ kind: 'json', body: vllmCompletion({ content: 'an answer' }) });
    directory = mkdtempSync(join(tmpdir(), 'ssrf-test-'));
    writeFileSync(join(directory, 'i2v.json'), JSON.stringify(workflow));
    const config = (allow: readonly string[]): PlatformConfig => ({
      models: {
        'glm-4.6v': { backend: 'openai-compatible', baseUrl: chatEngine.baseUrl, vision: true },
        'cogvideox-3': { backend: 'comfyui', baseUrl: comfy.baseUrl, workflow: join(directory, 'i2v.json'), pollIntervalMs: 10 },
      },
      agents: { vidu_template_agent: { model: 'cogvideox-3' } },
      ...(allow.length === 0 ? {} : { fetch: { allow: [...allow] } }),
    });
    // `localhost` allowed plays a public host: it reaches the fake web, and 127.0.0.1 stays refused.
    [closed, allowsLocalhost] = await Promise.all([startMediaTestPlatform(config([])), startMediaTestPlatform(config(['localhost']))]);
  });
  after(async () => {
    await Promise.all([closed.close(), allowsLocalhost.close()]);
    await Promise.all([target.close(), web.close(), chatEngine.close(), comfy.close()]);
    rmSync(directory, { recursive: true, force: true });
  });

  /** The engines saw nothing of the request (no chat or tokenize call, no workflow queued, no image uploaded). */
  function assertNoEngineCall(before: { chat: number; prompts: number; uploads: number }, label: string): void {
    assert.equal(chatEngine.requests.length, before.chat, `${label}: the chat engine was called`);
    assert.equal(comfy.prompts.length, before.prompts, `${label}: a workflow was queued`);
    assert.equal(comfy.uploads.length, before.uploads, `${label}: an image was uploaded`);
  }

  for (const field of fields) {
    it(`${field.name}: loopback, private, metadata, other schemes, //host, stray spaces and userinfo are refused`, async () => {
      for (const url of hostileUrls(target.port)) {
        const engineBefore = { chat: chatEngine.requests.length, prompts: comfy.prompts.length, uploads: comfy.uploads.length };
        const response = await field.send(closed, url);
        const label = `${field.name} ${JSON.stringify(url)}`;
        assertNoEngineCall(engineBefore, label);
        assert.equal(target.hits(), 0, `${label}: the internal target received a request`);
        assert.equal(response.statusCode, 400, `${label}: ${response.body}`);
        assertPlatformError(response, { status: 400, code: '1214', mentions: [`'${field.field}'`] });
      }
    });

    it(`${field.name}: a host the guard lets through that redirects to loopback is refused at the redirect`, async () => {
      const engineBefore = { chat: chatEngine.requests.length, prompts: comfy.prompts.length, uploads: comfy.uploads.length };
      const redirectsBefore = web.hits('/redirect/to');
      const inside = `http://127.0.0.1:${target.port}/secret.png`;
      const url = web.url(`/redirect/to?location=${encodeURIComponent(inside)}`, 'localhost');
      const response = await field.send(allowsLocalhost, url);
      assertPlatformError(response, { status: 400, code: '1214', mentions: [`'${field.field}'`, 'redirects to', 'private address'] });
      assert.equal(web.hits('/redirect/to'), redirectsBefore + 1, 'the allowed host was fetched');
      assert.equal(target.hits(), 0, 'the redirect target received a request');
      assertNoEngineCall(engineBefore, field.name);
    });
  }

  it('chat: a data URL that is not base64, or bare text that is not base64, never reaches the engine', async () => {
    const before = chatEngine.requests.length;
    for (const url of [
      'data:text/html,<img src=x>',
      'data:image/png;base64,not base64!',
      'data:image/png<x>;base64,AAAA',
      'javascript:alert(1)',
      'mailto:a@b.c',
    ]) {
      const response = await chatPart('image_url')(closed, url);
      assertPlatformError(response, { status: 400, code: '1214', mentions: ["'messages[0].content[1].image_url.url'"] });
    }
    assert.equal(chatEngine.requests.length, before);
  });

  it('chat: input_audio carries base64 and a format word only', async () => {
    const before = chatEngine.requests.length;
    for (const audio of [
      { data: `http://127.0.0.1:${target.port}/a.wav`, format: 'wav' },
      { data: 'UklGRg==', format: 'wav;base64,AAAA' },
    ]) {
      const response = await postJson(closed, '/paas/v4/chat/completions', {
        model: 'glm-4.6v',
        messages: [{ role: 'user', content: [{ type: 'input_audio', input_audio: audio }] }],
      });
      assertPlatformError(response, { status: 400, code: '1214', mentions: ["'messages[0].content[0].input_audio."] });
    }
    assert.equal(chatEngine.requests.length, before);
    assert.equal(target.hits(), 0);
  });

  it('chat: inline media (data URL, bare base64 as the Python SDK sends it) still reaches the engine', async () => {
    const base64 = dotPng.slice(dotPng.indexOf(',') + 1);
    for (const url of [dotPng, base64]) {
      const response = await chatPart('image_url')(closed, url);
      assert.equal(response.statusCode, 200, response.body);
      const parts = (chatEngine.requests.at(-1)?.body['messages'] as { content: { image_url?: { url: string } }[] }[])[0]?.content;
      assert.equal(parts?.[1]?.image_url?.url, dotPng);
    }
  });

  it('web search: a query or domain filter naming an internal address is searched for, not fetched', async () => {
    for (const body of [
      { search_engine: 'search-prime', search_query: `http://127.0.0.1:${target.port}/secret.png` },
      { search_engine: 'search-prime', search_query: 'secret', search_domain_filter: `127.0.0.1:${target.port}` },
    ]) {
      const response = await postJson(closed, '/paas/v4/web_search', body);
      assert.ok(response.statusCode < 500, response.body);
    }
    assert.equal(target.hits(), 0);
  });
});

describe('SSRF: media URLs an engine answers with', () => {
  let engine: FakeOpenAiImagesServer;
  let other: Target;
  let test: TestPlatform;
  let png: Buffer;

  before(async () => {
    png = await samplePng(16, 16);
    [engine, other] = await Promise.all([startFakeOpenAiImagesServer(), startTarget(png)]);
    test = await startMediaTestPlatform({ models: { 'my-painter': { backend: 'openai-images', baseUrl: engine.baseUrl, upstreamModel: 'dall-e-3' } } });
  });
  after(async () => {
    await test.close();
    await Promise.all([engine.close(), other.close()]);
  });

  const paint = () => postJson(test, '/paas/v4/images/generations', { model: 'my-painter', prompt: 'a dot' });

  it("downloads an image on the engine's own origin", async () => {
    engine.reply({ kind: 'url', images: [png] });
    const response = await paint();
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(engine.downloads.length, 1);
  });

  it("does not download a URL on the engine's host but another port", async () => {
    for (const host of ['127.0.0.1', 'localhost', '[::ffff:127.0.0.1]']) {
      engine.reply({ kind: 'foreign-url', urls: [`http://${host}:${other.port}/secret.png`] });
      const response = await paint();
      assertPlatformError(response, { status: 500, code: '500', mentions: ['my-painter', 'private address'] });
    }
    assert.equal(other.hits(), 0, 'the other port received a request');
  });

  it("does not follow a redirect from the engine's origin to another port of its host", async () => {
    for (const location of [`http://127.0.0.1:${other.port}/secret.png`, `http://localhost:${other.port}/secret.png`]) {
      engine.reply({ kind: 'redirect-url', location });
      const downloadsBefore = engine.downloads.length;
      const response = await paint();
      assertPlatformError(response, { status: 500, code: '500', mentions: ['my-painter', 'redirects to', 'private address'] });
      assert.equal(engine.downloads.length, downloadsBefore + 1, "the engine's own URL was fetched");
    }
    assert.equal(other.hits(), 0, 'the redirect target received a request');
  });

  it('does not download an engine URL in another scheme or written to be repaired', async () => {
    const hitsBefore = other.hits();
    for (const url of [`file:///etc/passwd`, ` http://127.0.0.1:${other.port}/secret.png`, `http://x@127.0.0.1:${other.port}/secret.png`]) {
      engine.reply({ kind: 'foreign-url', urls: [url] });
      const response = await paint();
      assertPlatformError(response, { status: 500, code: '500', mentions: ['my-painter'] });
    }
    assert.equal(other.hits(), hitsBefore);
  });
});
