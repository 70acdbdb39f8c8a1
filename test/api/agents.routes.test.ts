import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { Agent, AgentEvent, AgentInput, AsyncAgentResult, ConversationItem, ConversationQuery } from '../../src/agents/agent.ts';
import type { AgentId } from '../../src/agents/index.ts';
import { ApiError } from '../../src/core/errors/api-error.ts';
import type { App } from '../../src/http/app-types.ts';
import { buildApp } from '../../src/platform/build-app.ts';
import { assertPlatformError } from '../helpers/error-assertions.ts';
import { ResponseContract } from '../helpers/response-contract.ts';
import { parseSseBody } from '../helpers/sse-events.ts';
import { postJson, startTestPlatform, type TestPlatform } from '../helpers/test-platform.ts';

/**
 * The agent routes against a table of scripted agents (the real agents have their own tests):
 * how a body becomes an AgentInput, how events become the sync answer or the stream of
 * docs/wire.md §3.5, and how /conversation and /async-result map what an agent returns.
 */

type Script = (input: AgentInput) => AsyncIterable<AgentEvent>;

interface ScriptedAgents {
  readonly table: Record<AgentId, Agent>;
  readonly inputs: AgentInput[];
  readonly conversationQueries: ConversationQuery[];
  readonly asyncQueries: [owner: string, id: string, origin: string][];
  readonly origins: string[];
  script: Script;
  conversation: readonly ConversationItem[] | undefined;
  asyncResult: AsyncAgentResult | undefined;
}

function scriptedAgents(): ScriptedAgents {
  const state: ScriptedAgents = {
    inputs: [],
    conversationQueries: [],
    asyncQueries: [],
    origins: [],
    script: events([]),
    conversation: undefined,
    asyncResult: undefined,
    table: {} as Record<AgentId, Agent>,
  };
  const run = (input: AgentInput) => {
    state.inputs.push(input);
    return state.script(input);
  };
  state.table.general_translation = { run };
  state.table.slides_glm_agent = {
    run,
    conversation: async (query, origin) => {
      state.conversationQueries.push(query);
      state.origins.push(origin);
      return state.conversation;
    },
  };
  state.table.vidu_template_agent = {
    run,
    asyncResult: async (owner, id, origin) => {
      state.asyncQueries.push([owner, id, origin]);
      return state.asyncResult;
    },
  };
  return state;
}

function events(list: readonly (AgentEvent | Error)[]): Script {
  return async function* () {
    for (const item of list) {
      if (item instanceof Error) throw item;
      yield item;
    }
  };
}

const usage = { promptTokens: 30, completionTokens: 12, calls: 3 };
const done: AgentEvent = { kind: 'done', finishReason: 'stop', usage };
const translation = { agent_id: 'general_translation', messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello' }] }] };

describe('agent routes', () => {
  let test: TestPlatform;
  let app: App;
  let agents: ScriptedAgents;
  const contract = new ResponseContract();
  before(async () => {
    test = await startTestPlatform();
    agents = scriptedAgents();
    app = await buildApp({ ...test.platform, agents: agents.table, logger: false, onResponseMismatch: contract.report });
  });
  beforeEach(() => {
    agents.inputs.length = 0;
    agents.conversationQueries.length = 0;
    agents.asyncQueries.length = 0;
    agents.origins.length = 0;
  });
  after(async () => {
    await app.close();
    await test.close();
    contract.assertKept();
  });

  const post = (url: string, body: unknown, headers: Record<string, string> = {}) => postJson({ ...test, app }, url, body, headers);

  it('dispatches by agent_id and maps the body to an AgentInput (parts, urls, variables, ids, owner key)', async () => {
    agents.script = events([done]);
    const body = {
      agent_id: 'slides_glm_agent',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Make slides' },
            { type: 'file_url', file_url: { url: 'https://example.com/a.pdf' } },
          ],
        },
        { role: 'assistant', content: 'Outline ready.' },
        { role: 'user', content: [{ type: 'image_url', image_url: 'https://example.com/b.png' }] },
      ],
      conversation_id: 'conv-7',
      custom_variables: { anything: { nested: true } },
      request_id: 'req-agents-000001',
    };
    const response = await post('/v1/agents', body);
    assert.equal(response.statusCode, 200, response.body);
    const [input] = agents.inputs;
    assert.deepEqual(input?.messages, [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Make slides' },
          { type: 'file_url', url: 'https://example.com/a.pdf' },
        ],
      },
      { role: 'assistant', content: 'Outline ready.' },
      { role: 'user', content: [{ type: 'image_url', url: 'https://example.com/b.png' }] },
    ]);
    assert.deepEqual(input?.variables, { anything: { nested: true } });
    assert.equal(input?.conversationId, 'conv-7');
    assert.equal(input?.requestId, 'req-agents-000001');
    assert.equal(input?.ownerKeyId, test.key.split('.')[0]);
    assert.ok(input?.signal instanceof AbortSignal);
    await post('/v1/agents', translation);
    assert.deepEqual(agents.inputs[1]?.variables, {}, 'no custom_variables is {}');
  });

  it('answers synchronously with the whole text as one message, the finish reason and usage with total_calls', async () => {
    agents.script = events([{ kind: 'delta', text: '你好' }, { kind: 'delta', text: '，世界' }, done]);
    const response = await post('/v1/agents', translation);
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json() as Record<string, unknown>;
    assert.equal(typeof body['id'], 'string');
    assert.equal(body['agent_id'], 'general_translation');
    assert.deepEqual(body['choices'], [{ index: 0, finish_reason: 'stop', messages: [{ role: 'assistant', content: { type: 'text', text: '你好，世界' } }] }]);
    assert.deepEqual(body['usage'], { prompt_tokens: 30, completion_tokens: 12, total_tokens: 42, total_calls: 3 });
  });

  it('reports async_id, status and conversation_id of the done event', async () => {
    agents.script = events([{ kind: 'done', finishReason: 'stop', usage, asyncId: 'async-9', status: 'pending', conversationId: 'conv-9' }]);
    const body = (await post('/v1/agents', translation)).json() as Record<string, unknown>;
    assert.equal(body['async_id'], 'async-9');
    assert.equal(body['status'], 'pending');
    assert.equal(body['conversation_id'], 'conv-9');
  });

  it('streams frames that each carry agent_id, the last with finish_reason and usage, then [DONE]', async () => {
    agents.script = events([
      { kind: 'delta', text: 'Bon' },
      { kind: 'delta', text: 'jour' },
      { ...done, finishReason: 'length' },
    ]);
    const response = await post('/v1/agents', { ...translation, stream: true });
    assert.equal(response.statusCode, 200);
    assert.match(String(response.headers['content-type']), /^text\/event-stream/);
    const frames = parseSseBody(response.body);
    assert.equal(frames.length, 3);
    const ids = new Set(frames.map((frame) => frame['id']));
    assert.equal(ids.size, 1, 'one id for the whole answer');
    for (const frame of frames) assert.equal(frame['agent_id'], 'general_translation');
    assert.deepEqual(frames[0]?.['choices'], [{ index: 0, delta: { role: 'assistant', content: 'Bon' }, finish_reason: null }]);
    assert.deepEqual(frames[1]?.['choices'], [{ index: 0, delta: { role: 'assistant', content: 'jour' }, finish_reason: null }]);
    assert.deepEqual(frames[2]?.['choices'], [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: 'length' }]);
    assert.deepEqual(frames[2]?.['usage'], { prompt_tokens: 30, completion_tokens: 12, total_tokens: 42, total_calls: 3 });
    assert.equal(frames[0]?.['usage'], undefined);
  });

  it('an error before the first event is an HTTP error, in sync and in stream mode', async () => {
    agents.script = events([new ApiError('1214', "Invalid parameter 'custom_variables.glossary': no such file.")]);
    for (const stream of [false, true]) {
      const response = await post('/v1/agents', { ...translation, stream });
      assertPlatformError(response, { status: 400, code: '1214', mentions: ['custom_variables.glossary'] });
    }
  });

  it('an error after the first frame travels in band, with agent_id, then [DONE]; an unexpected one is a 500 frame', async () => {
    agents.script = events([{ kind: 'delta', text: 'Half' }, new ApiError('1301', 'Flagged.')]);
    let frames = parseSseBody((await post('/v1/agents', { ...translation, stream: true })).body);
    assert.equal(frames.length, 2);
    assert.deepEqual(frames[1], { id: frames[0]?.['id'], agent_id: 'general_translation', choices: [], error: { code: '1301', message: 'Flagged.' } });
    agents.script = events([{ kind: 'delta', text: 'Half' }, new Error('disk on fire')]);
    frames = parseSseBody((await post('/v1/agents', { ...translation, stream: true })).body);
    assert.equal((frames[1]?.['error'] as Record<string, unknown>)['code'], '500');
    assert.doesNotMatch(JSON.stringify(frames[1]), /disk on fire/, 'internal details stay inside');
  });

  it('/conversation passes the query to the agent and maps its items; an unknown conversation is 404', async () => {
    agents.conversation = [
      { type: 'image_url', url: 'https://platform.test/blobs/p1.png', tagCn: '第1页', tagEn: 'Page 1' },
      { type: 'file_url', url: 'https://platform.test/blobs/deck.pdf', tagCn: 'PDF文件', tagEn: 'PDF file' },
    ];
    const response = await post(
      '/api/paas/v4/v1/agents/conversation',
      {
        agent_id: 'slides_glm_agent',
        conversation_id: 'conv-1',
        custom_variables: { include_pdf: true, pages: [{ position: 1, width: 1440, height: 810.5 }] },
        request_id: null,
      },
      { host: 'platform.example' },
    );
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(agents.conversationQueries, [
      { ownerKeyId: test.key.split('.')[0], conversationId: 'conv-1', includePdf: true, pages: [{ position: 1, width: 1440, height: 810.5 }] },
    ]);
    assert.deepEqual(response.json(), {
      conversation_id: 'conv-1',
      agent_id: 'slides_glm_agent',
      choices: [
        {
          message: [
            {
              role: 'assistant',
              content: [
                { type: 'image_url', tag_cn: '第1页', tag_en: 'Page 1', image_url: 'https://platform.test/blobs/p1.png' },
                { type: 'file_url', tag_cn: 'PDF文件', tag_en: 'PDF file', file_url: 'https://platform.test/blobs/deck.pdf' },
              ],
            },
          ],
        },
      ],
    });
    assert.deepEqual(agents.origins, ['http://platform.example'], 'the origin the client reached, for signed URLs');
    await post('/v1/agents/conversation', { agent_id: 'slides_glm_agent', conversation_id: 'conv-2' });
    assert.deepEqual(agents.conversationQueries[1]?.pages, []);
    assert.equal(agents.conversationQueries[1]?.includePdf, false);
    agents.conversation = undefined;
    assertPlatformError(await post('/v1/agents/conversation', { agent_id: 'slides_glm_agent', conversation_id: 'conv-3' }), {
      status: 404,
      code: '404',
      mentions: ['conv-3'],
    });
  });

  it('/async-result maps pending, success and failed, by async_id (Python) or task_id (Java)', async () => {
    const asyncBody = { agent_id: 'vidu_template_agent', async_id: 'async-1' };
    agents.asyncResult = { status: 'pending' };
    assert.deepEqual((await post('/v1/agents/async-result', asyncBody)).json(), { status: 'pending', agent_id: 'vidu_template_agent', async_id: 'async-1' });
    agents.asyncResult = { status: 'success', videoUrl: 'https://platform.test/blobs/v.mp4', coverUrl: 'https://platform.test/blobs/v.png' };
    const success = await post('/paas/v4/v1/agents/async-result', { agent_id: 'vidu_template_agent', task_id: 'async-1', request_id: 'req-java-123456' });
    assert.deepEqual(success.json(), {
      status: 'success',
      agent_id: 'vidu_template_agent',
      async_id: 'async-1',
      choices: [
        {
          index: 0,
          finish_reason: 'stop',
          message: [
            {
              role: 'assistant',
              content: [{ type: 'video_url', video_url: 'https://platform.test/blobs/v.mp4', cover_image_url: 'https://platform.test/blobs/v.png' }],
            },
          ],
        },
      ],
    });
    agents.asyncResult = { status: 'failed', error: { code: '1234', message: 'The engine could not be reached.' } };
    assert.deepEqual((await post('/v1/agents/async-result', { ...asyncBody, task_id: 'async-1' })).json(), {
      status: 'failed',
      agent_id: 'vidu_template_agent',
      async_id: 'async-1',
      error: { code: '1234', message: 'The engine could not be reached.' },
    });
    assert.deepEqual(
      agents.asyncQueries.map(([, id]) => id),
      ['async-1', 'async-1', 'async-1'],
    );
    assert.match(agents.asyncQueries[0]?.[2] ?? '', /^http:\/\/(localhost|127\.0\.0\.1)/);
    assert.equal(agents.asyncQueries[0]?.[0], test.key.split('.')[0]);
  });

  it('/async-result is 404 for an id the agent does not know, and for an agent that never answers asynchronously', async () => {
    agents.asyncResult = undefined;
    assertPlatformError(await post('/v1/agents/async-result', { agent_id: 'vidu_template_agent', async_id: 'nope-1' }), {
      status: 404,
      code: '404',
      mentions: ['nope-1', 'vidu_template_agent'],
    });
    assertPlatformError(await post('/v1/agents/async-result', { agent_id: 'general_translation', task_id: 'async-1' }), {
      status: 404,
      code: '404',
      mentions: ['async-1', 'general_translation'],
    });
  });
});
