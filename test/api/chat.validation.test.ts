import { after, before, describe, it } from 'node:test';
import { assertPlatformError } from '../helpers/error-assertions.ts';
import { postJson, startTestPlatform, type TestPlatform } from '../helpers/test-platform.ts';
import { sharedIdCases } from '../helpers/shared-id-cases.ts';
import { itRejectsEach } from '../helpers/rejected-cases.ts';

const url = '/paas/v4/chat/completions';
const valid = { model: 'glm-4.7', messages: [{ role: 'user', content: 'Hello' }] };
/** An object nested `levels` deep: {"a":{"a":...}}. */
const nested = (levels: number): Record<string, unknown> => (levels <= 1 ? {} : { a: nested(levels - 1) });
const tool = (name: string) => ({ type: 'function', function: { name, parameters: { type: 'object', properties: {} } } });

/** Each case breaks one rule; the answer must name the field (1213 missing, 1214 invalid). */
const rejected: { name: string; body: Record<string, unknown>; code: string; field: string }[] = [
  { name: 'model missing', body: { messages: valid.messages }, code: '1213', field: 'model' },
  { name: 'messages missing', body: { model: 'glm-4.7' }, code: '1213', field: 'messages' },
  { name: 'messages empty', body: { ...valid, messages: [] }, code: '1214', field: 'messages' },
  { name: 'only system messages', body: { ...valid, messages: [{ role: 'system', content: 'x' }] }, code: '1214', field: 'messages' },
  { name: 'only assistant messages', body: { ...valid, messages: [{ role: 'assistant', content: 'x' }] }, code: '1214', field: 'messages' },
  { name: 'unknown role', body: { ...valid, messages: [{ role: 'robot', content: 'x' }] }, code: '1214', field: 'messages[0].role' },
  { name: 'user content missing', body: { ...valid, messages: [{ role: 'user' }] }, code: '1213', field: 'messages[0].content' },
  { name: 'temperature above 1', body: { ...valid, temperature: 1.5 }, code: '1214', field: 'temperature' },
  { name: 'temperature below 0', body: { ...valid, temperature: -0.1 }, code: '1214', field: 'temperature' },
  { name: 'temperature as string', body: { ...valid, temperature: '0.5' }, code: '1214', field: 'temperature' },
  { name: 'top_p below 0.01', body: { ...valid, top_p: 0 }, code: '1214', field: 'top_p' },
  { name: 'top_p above 1', body: { ...valid, top_p: 1.01 }, code: '1214', field: 'top_p' },
  { name: 'max_tokens 0', body: { ...valid, max_tokens: 0 }, code: '1214', field: 'max_tokens' },
  { name: 'max_tokens above 131072', body: { ...valid, max_tokens: 131073 }, code: '1214', field: 'max_tokens' },
  { name: 'max_tokens not integer', body: { ...valid, max_tokens: 1.5 }, code: '1214', field: 'max_tokens' },
  { name: 'max_tokens above the model cap', body: { ...valid, model: 'glm-4-32b-0414-128k', max_tokens: 20000 }, code: '1214', field: 'max_tokens' },
  { name: 'five stop words', body: { ...valid, stop: ['a', 'b', 'c', 'd', 'e'] }, code: '1214', field: 'stop' },
  { name: 'stop as an empty array', body: { ...valid, stop: [] }, code: '1214', field: 'stop' },
  { name: 'stop word not a string', body: { ...valid, stop: ['a', 5] }, code: '1214', field: 'stop' },
  { name: 'stop of wrong type', body: { ...valid, stop: 5 }, code: '1214', field: 'stop' },
  { name: 'tool_choice not auto', body: { ...valid, tools: [tool('f')], tool_choice: 'required' }, code: '1214', field: 'tool_choice' },
  { name: 'function name with a space', body: { ...valid, tools: [tool('bad name')] }, code: '1214', field: 'tools[0].function.name' },
  { name: 'function name empty', body: { ...valid, tools: [tool('')] }, code: '1214', field: 'tools[0].function.name' },
  { name: 'function name of 65 characters', body: { ...valid, tools: [tool('a'.repeat(65))] }, code: '1214', field: 'tools[0].function.name' },
  // Sent on to the engine as JSON: thousands of levels would overflow JSON.stringify's stack (a 500).
  {
    name: 'function parameters nested 65 levels deep',
    body: { ...valid, tools: [{ type: 'function', function: { name: 'f', parameters: nested(65) } }] },
    code: '1214',
    field: 'tools[0].function.parameters',
  },
  { name: 'function object missing', body: { ...valid, tools: [{ type: 'function' }] }, code: '1213', field: 'tools[0].function' },
  { name: 'tool of unknown type', body: { ...valid, tools: [{ type: 'code' }] }, code: '1214', field: 'tools[0].type' },
  { name: '129 tools', body: { ...valid, tools: Array.from({ length: 129 }, (_, i) => tool(`f${i}`)) }, code: '1214', field: 'tools' },
  { name: 'thinking.type unknown', body: { ...valid, thinking: { type: 'auto' } }, code: '1214', field: 'thinking.type' },
  { name: 'glm-5.3 thinking disabled', body: { ...valid, model: 'glm-5.3', thinking: { type: 'disabled' } }, code: '1214', field: 'thinking.type' },
  { name: 'glm-5.3 effort medium', body: { ...valid, model: 'glm-5.3', reasoning_effort: 'medium' }, code: '1214', field: 'reasoning_effort' },
  { name: 'reasoning_effort unknown', body: { ...valid, reasoning_effort: 'extreme' }, code: '1214', field: 'reasoning_effort' },
  { name: 'tool_stream on glm-4.5', body: { ...valid, model: 'glm-4.5', stream: true, tool_stream: true }, code: '1214', field: 'tool_stream' },
  { name: 'response_format type unknown', body: { ...valid, response_format: { type: 'xml' } }, code: '1214', field: 'response_format.type' },
  {
    name: 'response_format on a vision model',
    body: { ...valid, model: 'glm-4.6v', response_format: { type: 'json_object' } },
    code: '1214',
    field: 'response_format',
  },
  { name: 'do_sample not boolean', body: { ...valid, do_sample: 'no' }, code: '1214', field: 'do_sample' },
  ...sharedIdCases(valid),
];

describe('POST /paas/v4/chat/completions contract', () => {
  let test: TestPlatform;
  before(async () => {
    test = await startTestPlatform({ config: { models: { 'my-llm': { backend: 'searxng', baseUrl: 'http://127.0.0.1:9' } } } });
  });
  after(() => test.close());

  itRejectsEach(() => test, url, rejected);

  it('accepts a full request (nulls as absent, unknown fields ignored) and says no engine is configured', async () => {
    const response = await postJson(test, url, {
      ...valid,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{}' } }] },
        { role: 'tool', content: '{"ok":true}', tool_call_id: 'call_1' },
      ],
      do_sample: true,
      stream: false,
      thinking: { type: 'enabled', clear_thinking: false },
      reasoning_effort: 'high',
      temperature: 0,
      top_p: 0.01,
      max_tokens: 131072,
      tool_stream: true,
      tools: Array.from({ length: 128 }, (_, i) => tool(`f_${i}`)),
      tool_choice: 'auto',
      stop: 'END',
      response_format: null,
      request_id: 'req-123456',
      user_id: 'user-123456',
      watermark_enabled: false,
      meta: { a: 1 },
      sensitive_word_check: null,
    });
    assertPlatformError(response, { status: 400, code: '1221', mentions: ['glm-4.7', 'models:'] });
  });

  it('answers 1211 for a model neither the platform nor the catalog knows', async () => {
    const response = await postJson(test, url, { ...valid, model: 'gpt-4o' });
    assertPlatformError(response, { status: 400, code: '1211', mentions: ['gpt-4o'] });
  });

  it('accepts a catalog model and names its backend when this build cannot run it', async () => {
    const response = await postJson(test, url, { ...valid, model: 'my-llm' });
    assertPlatformError(response, { status: 400, code: '1221', mentions: ['my-llm', 'searxng'] });
  });

  it('is served under every alias prefix', async () => {
    for (const prefix of ['/api/paas/v4', '/api/coding/paas/v4']) {
      const response = await postJson(test, `${prefix}/chat/completions`, { ...valid, temperature: 2 });
      assertPlatformError(response, { status: 400, code: '1214', mentions: ['temperature'] });
    }
  });
});
