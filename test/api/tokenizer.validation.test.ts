import { after, before, describe, it } from 'node:test';
import { assertPlatformError } from '../helpers/error-assertions.ts';
import { postJson, startTestPlatform, type TestPlatform } from '../helpers/test-platform.ts';
import { sharedIdCases } from '../helpers/shared-id-cases.ts';
import { itRejectsEach } from '../helpers/rejected-cases.ts';

const url = '/paas/v4/tokenizer';
const valid = { model: 'glm-4.6', messages: [{ role: 'user', content: 'Hello' }] };
/** An object nested `levels` deep: {"a":{"a":...}}. */
const nested = (levels: number): Record<string, unknown> => (levels <= 1 ? {} : { a: nested(levels - 1) });
const tool = (name: string) => ({ type: 'function', function: { name, parameters: { type: 'object', properties: {} } } });

/** Each case breaks one rule; the answer must name the field (1213 missing, 1214 invalid). */
const rejected: { name: string; body: Record<string, unknown>; code: string; field: string }[] = [
  { name: 'model missing', body: { messages: valid.messages }, code: '1213', field: 'model' },
  { name: 'model null', body: { ...valid, model: null }, code: '1213', field: 'model' },
  { name: 'model empty', body: { ...valid, model: '' }, code: '1214', field: 'model' },
  { name: 'messages missing', body: { model: 'glm-4.6' }, code: '1213', field: 'messages' },
  { name: 'messages empty', body: { ...valid, messages: [] }, code: '1214', field: 'messages' },
  { name: 'messages not an array', body: { ...valid, messages: 'Hello' }, code: '1214', field: 'messages' },
  { name: 'only system messages', body: { ...valid, messages: [{ role: 'system', content: 'x' }] }, code: '1214', field: 'messages' },
  { name: 'only assistant messages', body: { ...valid, messages: [{ role: 'assistant', content: 'x' }] }, code: '1214', field: 'messages' },
  {
    name: 'tool role',
    body: {
      ...valid,
      messages: [
        { role: 'user', content: 'x' },
        { role: 'tool', content: 'x' },
      ],
    },
    code: '1214',
    field: 'messages[1].role',
  },
  { name: 'unknown role', body: { ...valid, messages: [{ role: 'robot', content: 'x' }] }, code: '1214', field: 'messages[0].role' },
  { name: 'content missing', body: { ...valid, messages: [{ role: 'user' }] }, code: '1213', field: 'messages[0].content' },
  { name: 'content null', body: { ...valid, messages: [{ role: 'user', content: null }] }, code: '1213', field: 'messages[0].content' },
  { name: 'content parts empty', body: { ...valid, messages: [{ role: 'user', content: [] }] }, code: '1214', field: 'messages[0].content' },
  {
    name: 'content part of unknown type',
    body: { ...valid, messages: [{ role: 'user', content: [{ type: 'pdf' }] }] },
    code: '1214',
    field: 'messages[0].content[0].type',
  },
  {
    name: 'image part without image_url',
    body: { ...valid, messages: [{ role: 'user', content: [{ type: 'image_url' }] }] },
    code: '1213',
    field: 'messages[0].content[0].image_url',
  },
  { name: 'tools not an array', body: { ...valid, tools: tool('f') }, code: '1214', field: 'tools' },
  { name: '129 tools', body: { ...valid, tools: Array.from({ length: 129 }, (_, i) => tool(`f${i}`)) }, code: '1214', field: 'tools' },
  { name: 'tool that is not a function', body: { ...valid, tools: [{ type: 'retrieval', function: { name: 'f' } }] }, code: '1214', field: 'tools[0].type' },
  { name: 'function object missing', body: { ...valid, tools: [{ type: 'function' }] }, code: '1213', field: 'tools[0].function' },
  { name: 'function name missing', body: { ...valid, tools: [{ type: 'function', function: {} }] }, code: '1213', field: 'tools[0].function.name' },
  { name: 'function name with a space', body: { ...valid, tools: [tool('bad name')] }, code: '1214', field: 'tools[0].function.name' },
  { name: 'function name of 65 characters', body: { ...valid, tools: [tool('a'.repeat(65))] }, code: '1214', field: 'tools[0].function.name' },
  // Sent on to the engine as JSON: thousands of levels would overflow JSON.stringify's stack (a 500).
  {
    name: 'function parameters nested 65 levels deep',
    body: { ...valid, tools: [{ type: 'function', function: { name: 'f', parameters: nested(65) } }] },
    code: '1214',
    field: 'tools[0].function.parameters',
  },
  ...sharedIdCases(valid),
];

describe('POST /paas/v4/tokenizer contract', () => {
  let test: TestPlatform;
  before(async () => {
    test = await startTestPlatform({ config: { models: { 'my-llm': { backend: 'searxng', baseUrl: 'http://127.0.0.1:9' } } } });
  });
  after(() => test.close());

  itRejectsEach(() => test, url, rejected);

  it('accepts a full request (nulls as absent, unknown fields ignored) and says no engine is configured', async () => {
    const response = await postJson(test, url, {
      model: 'glm-4.6v',
      messages: [
        { role: 'system', content: 'Be brief.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image_url', image_url: { url: 'https://example.com/cat.png' } },
            { type: 'video_url', video_url: { url: 'https://example.com/cat.mp4' } },
          ],
        },
        { role: 'assistant', content: 'A cat.', name: null },
        { role: 'user', content: 'Thanks' },
      ],
      tools: Array.from({ length: 128 }, (_, i) => tool(`f_${i}`)),
      request_id: 'req-123456',
      user_id: 'user-123456',
      stream: true,
      temperature: 0.5,
    });
    assertPlatformError(response, { status: 400, code: '1221', mentions: ['glm-4.6v', 'models:'] });
  });

  it('accepts null for every optional field', async () => {
    for (const model of ['glm-4.6', 'glm-4.5']) {
      const response = await postJson(test, url, { ...valid, model, tools: null, request_id: null, user_id: null });
      assertPlatformError(response, { status: 400, code: '1221', mentions: [model] });
    }
  });

  it('answers 1211 for a model neither the platform nor the catalog knows', async () => {
    const response = await postJson(test, url, { ...valid, model: 'gpt-4o' });
    assertPlatformError(response, { status: 400, code: '1211', mentions: ['gpt-4o'] });
  });

  it('knows the chat models: one without an engine answers 1221 naming the alias line', async () => {
    const response = await postJson(test, url, { ...valid, model: 'glm-4.7' });
    assertPlatformError(response, { status: 400, code: '1221', mentions: ['glm-4.7', 'alias'] });
  });

  it('accepts a catalog model and names its backend when this build cannot run it', async () => {
    const response = await postJson(test, url, { ...valid, model: 'my-llm' });
    assertPlatformError(response, { status: 400, code: '1221', mentions: ['my-llm', 'searxng'] });
  });

  it('is served under every alias prefix', async () => {
    for (const prefix of ['/api/paas/v4', '/api/coding/paas/v4']) {
      const response = await postJson(test, `${prefix}/tokenizer`, { ...valid, messages: [] });
      assertPlatformError(response, { status: 400, code: '1214', mentions: ['messages'] });
    }
  });
});
