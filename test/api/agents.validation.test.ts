import { after, before, describe, it } from 'node:test';
import { assertPlatformError } from '../helpers/error-assertions.ts';
import { sharedIdCases } from '../helpers/shared-id-cases.ts';
import { postJson, startTestPlatform, type TestPlatform } from '../helpers/test-platform.ts';

const userText = { role: 'user', content: [{ type: 'text', text: 'Hello, world' }] };
const translation = { agent_id: 'general_translation', messages: [userText] };
const effects = {
  agent_id: 'vidu_template_agent',
  messages: [{ role: 'user', content: [{ type: 'image_url', image_url: 'https://example.com/face.png' }] }],
  custom_variables: { template: 'french_kiss' },
};
const slides = { agent_id: 'slides_glm_agent', messages: [userText] };
const conversation = { agent_id: 'slides_glm_agent', conversation_id: 'conv-1' };
const asyncResult = { agent_id: 'vidu_template_agent', async_id: 'async-1' };

type Case = { name: string; body: Record<string, unknown>; code: string; field: string };

/** POST /v1/agents: each case breaks one rule; the answer must name the field. */
const rejectedChats: Case[] = [
  { name: 'agent_id missing', body: { messages: [userText] }, code: '1213', field: 'agent_id' },
  { name: 'agent_id unknown', body: { ...translation, agent_id: 'receipt_recognition_agent' }, code: '1214', field: 'agent_id' },
  { name: 'messages missing', body: { agent_id: 'general_translation' }, code: '1213', field: 'messages' },
  { name: 'messages empty', body: { ...translation, messages: [] }, code: '1214', field: 'messages' },
  { name: 'role unknown', body: { ...slides, messages: [{ role: 'system', content: 'x' }] }, code: '1214', field: 'messages[0].role' },
  {
    name: 'translation with an assistant message',
    body: { ...translation, messages: [userText, { role: 'assistant', content: 'Hi' }] },
    code: '1214',
    field: 'messages[1].role',
  },
  { name: 'content missing', body: { ...translation, messages: [{ role: 'user' }] }, code: '1213', field: 'messages[0].content' },
  { name: 'content empty list', body: { ...translation, messages: [{ role: 'user', content: [] }] }, code: '1214', field: 'messages[0].content' },
  {
    name: 'content part of unknown type',
    body: { ...translation, messages: [{ role: 'user', content: [{ type: 'audio', text: 'x' }] }] },
    code: '1214',
    field: 'messages[0].content[0].type',
  },
  {
    name: 'text part without text',
    body: { ...translation, messages: [{ role: 'user', content: [{ type: 'text' }] }] },
    code: '1213',
    field: 'messages[0].content[0].text',
  },
  {
    name: 'image part without image_url',
    body: { ...effects, messages: [{ role: 'user', content: [{ type: 'image_url' }] }] },
    code: '1213',
    field: 'messages[0].content[0].image_url',
  },
  { name: 'stream not a boolean', body: { ...translation, stream: 'yes' }, code: '1214', field: 'stream' },
  { name: 'custom_variables not an object', body: { ...translation, custom_variables: 'en' }, code: '1214', field: 'custom_variables' },
  { name: 'source_lang unknown', body: { ...translation, custom_variables: { source_lang: 'klingon' } }, code: '1214', field: 'custom_variables.source_lang' },
  { name: 'target_lang auto', body: { ...translation, custom_variables: { target_lang: 'auto' } }, code: '1214', field: 'custom_variables.target_lang' },
  { name: 'glossary not a string', body: { ...translation, custom_variables: { glossary: 42 } }, code: '1214', field: 'custom_variables.glossary' },
  { name: 'strategy unknown', body: { ...translation, custom_variables: { strategy: 'literal' } }, code: '1214', field: 'custom_variables.strategy' },
  {
    name: 'strategy_config.general.suggestion not a string',
    body: { ...translation, custom_variables: { strategy_config: { general: { suggestion: 1 } } } },
    code: '1214',
    field: 'custom_variables.strategy_config.general.suggestion',
  },
  {
    name: 'strategy_config.cot.reason_lang unknown',
    body: { ...translation, custom_variables: { strategy_config: { cot: { reason_lang: 'both' } } } },
    code: '1214',
    field: 'custom_variables.strategy_config.cot.reason_lang',
  },
  { name: 'effects without custom_variables', body: { ...effects, custom_variables: undefined }, code: '1213', field: 'custom_variables' },
  { name: 'effects without template', body: { ...effects, custom_variables: {} }, code: '1213', field: 'custom_variables.template' },
  { name: 'effects template unknown', body: { ...effects, custom_variables: { template: 'moonwalk' } }, code: '1214', field: 'custom_variables.template' },
  { name: 'effects without an image', body: { ...effects, messages: [userText] }, code: '1214', field: 'messages' },
  {
    name: 'effects with the image only in an assistant message',
    body: { ...effects, messages: [userText, { role: 'assistant', content: 'https://example.com/a.png' }] },
    code: '1214',
    field: 'messages',
  },
  ...sharedIdCases(translation),
];

const rejectedConversations: Case[] = [
  { name: 'agent_id missing', body: { conversation_id: 'conv-1' }, code: '1213', field: 'agent_id' },
  { name: 'agent_id of an agent without history', body: { ...conversation, agent_id: 'general_translation' }, code: '1214', field: 'agent_id' },
  { name: 'conversation_id missing', body: { agent_id: 'slides_glm_agent' }, code: '1213', field: 'conversation_id' },
  {
    name: 'include_pdf not a boolean',
    body: { ...conversation, custom_variables: { include_pdf: 'yes' } },
    code: '1214',
    field: 'custom_variables.include_pdf',
  },
  { name: 'pages not a list', body: { ...conversation, custom_variables: { pages: {} } }, code: '1214', field: 'custom_variables.pages' },
  {
    name: 'page position 0',
    body: { ...conversation, custom_variables: { pages: [{ position: 0, width: 1440, height: 810 }] } },
    code: '1214',
    field: 'custom_variables.pages[0].position',
  },
  {
    name: 'page position not an integer',
    body: { ...conversation, custom_variables: { pages: [{ position: 1.5, width: 1440, height: 810 }] } },
    code: '1214',
    field: 'custom_variables.pages[0].position',
  },
  {
    name: 'page width 0',
    body: { ...conversation, custom_variables: { pages: [{ position: 1, width: 0, height: 810 }] } },
    code: '1214',
    field: 'custom_variables.pages[0].width',
  },
  {
    name: 'page height missing',
    body: { ...conversation, custom_variables: { pages: [{ position: 1, width: 1440 }] } },
    code: '1213',
    field: 'custom_variables.pages[0].height',
  },
];

const rejectedAsyncResults: Case[] = [
  { name: 'agent_id missing', body: { async_id: 'async-1' }, code: '1213', field: 'agent_id' },
  { name: 'agent_id unknown', body: { ...asyncResult, agent_id: 'other_agent' }, code: '1214', field: 'agent_id' },
  { name: 'neither async_id nor task_id', body: { agent_id: 'vidu_template_agent' }, code: '1213', field: 'async_id' },
  { name: 'async_id and task_id that differ', body: { ...asyncResult, task_id: 'async-2' }, code: '1215', field: 'task_id' },
  { name: 'async_id empty', body: { ...asyncResult, async_id: '' }, code: '1214', field: 'async_id' },
  { name: 'request_id too short', body: { ...asyncResult, request_id: 'abc' }, code: '1214', field: 'request_id' },
];

describe('agent endpoints contract', () => {
  let test: TestPlatform;
  before(async () => {
    test = await startTestPlatform();
  });
  after(() => test.close());

  const tables: [string, Case[]][] = [
    ['/v1/agents', rejectedChats],
    ['/v1/agents/conversation', rejectedConversations],
    ['/v1/agents/async-result', rejectedAsyncResults],
  ];
  for (const [path, cases] of tables) {
    for (const testCase of cases) {
      it(`POST ${path} rejects: ${testCase.name}`, async () => {
        const response = await postJson(test, path, testCase.body);
        assertPlatformError(response, { status: 400, code: testCase.code, mentions: [testCase.field] });
      });
    }
  }

  it('accepts full agent chat requests (nulls as absent, unknown fields ignored); without a configured model the agent says what it waits for', async () => {
    const bodies = [
      {
        ...translation,
        messages: [{ role: 'user', content: 'Plain text content is accepted too.' }],
        stream: false,
        custom_variables: {
          source_lang: 'auto',
          target_lang: 'en-US',
          glossary: 'file-123',
          strategy: 'cot',
          strategy_config: { general: { suggestion: 'Keep it formal.' }, cot: { reason_lang: 'to' } },
          unknown_setting: 1,
        },
        request_id: 'req-agent-123456',
        user_id: 'user-123456',
        conversation_id: null,
        extra: { ignored: true },
      },
      { ...translation, custom_variables: { source_lang: null, strategy_config: { general: null } }, stream: null },
      { ...effects, stream: true, custom_variables: { template: 'sexy_me' } },
      { ...effects, messages: [{ role: 'user', content: 'https://example.com/face.png' }], custom_variables: { template: 'bodyshake' } },
      { ...effects, messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } }] }] },
      {
        ...slides,
        messages: [
          userText,
          { role: 'assistant', content: [{ type: 'text', text: 'Outline ready.' }] },
          { role: 'user', content: [{ type: 'file_url', file_url: 'https://example.com/brief.pdf' }] },
        ],
        conversation_id: 'conv-1',
        stream: true,
        custom_variables: { template: 42, anything: { nested: true } },
      },
    ];
    for (const body of bodies) {
      const response = await postJson(test, '/v1/agents', body);
      if (body.agent_id === 'vidu_template_agent') assertPlatformError(response, { status: 400, code: '1221', mentions: [`'${body.agent_id}'`] });
      // The glossary is looked up before the model is called: an id that names no upload is the caller's error.
      else if ('glossary' in (body.custom_variables ?? {})) assertPlatformError(response, { status: 400, code: '1214', mentions: ['file-123'] });
      // A conversation is looked up before any model call.
      else if (body.agent_id === 'slides_glm_agent') assertPlatformError(response, { status: 404, code: '404', mentions: ['conv-1'] });
      // The chat agents run on the default chat model, which is not downloaded here.
      else assertPlatformError(response, { status: 400, code: '1221', mentions: ["'glm-edge-1.5b-chat' is not ready", 'model-platform pull'] });
    }
  });

  // A full conversation history request reaching its agent is in agents.routes.test.ts.

  it('accepts async results by async_id (Python SDK) and by task_id (Java SDK): an unknown id is 404', async () => {
    for (const body of [
      { ...asyncResult, conversation_id: 'conv-1', custom_variables: { any: 1 } },
      { agent_id: 'general_translation', task_id: 'async-1', request_id: 'req-java-123456' },
      { ...asyncResult, task_id: 'async-1' },
    ]) {
      const response = await postJson(test, '/v1/agents/async-result', body);
      assertPlatformError(response, { status: 404, code: '404', mentions: ['async-1', body.agent_id] });
    }
  });

  it('is served under every agent prefix, including the paths the SDKs build from their base URL', async () => {
    for (const prefix of ['/v1/agents', '/api/v1/agents', '/paas/v4/v1/agents', '/api/paas/v4/v1/agents', '/api/coding/paas/v4/v1/agents']) {
      assertPlatformError(await postJson(test, prefix, { ...translation, stream: 'yes' }), { status: 400, code: '1214', mentions: ['stream'] });
      assertPlatformError(await postJson(test, `${prefix}/conversation`, { agent_id: 'slides_glm_agent' }), {
        status: 400,
        code: '1213',
        mentions: ['conversation_id'],
      });
      assertPlatformError(await postJson(test, `${prefix}/async-result`, { agent_id: 'slides_glm_agent' }), {
        status: 400,
        code: '1213',
        mentions: ['async_id'],
      });
      assertPlatformError(await postJson(test, prefix, translation), { status: 400, code: '1221', mentions: ['glm-edge-1.5b-chat'] });
    }
  });
});
