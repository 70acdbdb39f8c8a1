import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import { ZhipuAI } from 'zhipuai-sdk-nodejs-v4';
import { formatApiKey } from '../../src/core/auth/api-key.ts';
import { assertPlatformError } from '../helpers/error-assertions.ts';
import { sseReply, startFakeOpenAiServer, vllmCompletion, vllmReasoningStream, type FakeOpenAiServer } from '../helpers/fake-openai-server.ts';
import { startMediaTestPlatform, waitForTask } from '../helpers/media-test-platform.ts';
import { encodeForm, type FormEntry } from '../helpers/multipart-form.ts';
import { digitalPdf } from '../helpers/rendered-documents.ts';
import { parseSseBody } from '../helpers/sse-events.ts';
import { postJson, type TestPlatform } from '../helpers/test-platform.ts';

const chatPath = '/paas/v4/chat/completions';

const notes = [
  'Station log for the northern survey.',
  'The crew checked the anchors twice before the storm arrived.',
  'The Zorblax coolant boils at 412 kelvin, so the pumps are stopped well below that.',
  'Supplies arrive by boat on the first Monday of each month.',
].join('\n\n');

const lighthouse = `<!doctype html><html><head><title>Kestrel Point</title></head><body>
<nav><a href="/">Home</a> <a href="/about">About</a></nav>
<article><h1>Kestrel Point lighthouse</h1>
<p>The Kestrel Point lighthouse was first lit in 1893 by the keeper Ada Pennick, who kept it for forty years.</p>
<p>Its lamp burned whale oil until the harbour board brought paraffin in the winter of 1901.</p>
<p>Visitors climb one hundred and twelve steps to the gallery, where the view reaches the outer islands.</p></article>
<footer>Harbour heritage society</footer></body></html>`;

/** A PDF with a text layer, rendered here. */
function bridgePdf(): Promise<Buffer> {
  const line = (text: string, y: number) => ({ text, x: 40, y, size: 12 });
  return digitalPdf([
    {
      width: 595,
      height: 842,
      items: [
        line('Marrow Bridge survey', 40),
        line('The Marrow Bridge spans 740 metres across the Quell river.', 80),
        line('It opened to traffic in 1962.', 110),
      ],
    },
  ]);
}

/** A POST /files form as the Python SDK sends it: the data fields (None ones left out) first, then the file part. */
function pythonSdkUpload(knowledgeId: string, file: Uint8Array, filename: string, type: string, sentenceSize?: number): FormEntry[] {
  return [
    ['purpose', 'retrieval'],
    ['knowledge_id', knowledgeId],
    ...(sentenceSize === undefined ? [] : [['sentence_size', String(sentenceSize)] as const]),
    ['file', file, filename, type],
  ];
}

describe('the chat retrieval tool over local knowledge bases (fake vLLM on loopback)', () => {
  let engine: FakeOpenAiServer;
  let test: TestPlatform;
  let base = '';
  let otherKey = '';
  let adminKey = '';
  const fileIds = new Map<string, string>();

  async function upload(key: string, entries: readonly FormEntry[]) {
    const { payload, contentType } = await encodeForm(entries);
    return test.app.inject({ method: 'POST', url: '/api/paas/v4/files', headers: { authorization: `Bearer ${key}`, 'content-type': contentType }, payload });
  }

  /** The last user turn the engine received. */
  function promptSent(index = 0): string {
    const messages = engine.requests[index]?.body['messages'] as { role: string; content: string }[];
    return messages.filter((message) => message.role === 'user').at(-1)?.content ?? '';
  }

  before(async () => {
    engine = await startFakeOpenAiServer();
    test = await startMediaTestPlatform({ models: { 'glm-4.7': { backend: 'openai-compatible', baseUrl: engine.baseUrl, upstreamModel: 'zai-org/GLM' } } });
    otherKey = formatApiKey(await test.platform.keys.create({ name: 'other' }));
    adminKey = formatApiKey(await test.platform.keys.create({ name: 'operator', policy: { scope: 'admin' } }));
    await test.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(test.app.server.address() as AddressInfo).port}`;

    const documents: [string, Uint8Array, string][] = [
      ['notes.md', Buffer.from(notes), 'text/markdown'],
      ['lighthouse.html', Buffer.from(lighthouse), 'text/html'],
      ['bridge.pdf', await bridgePdf(), 'application/pdf'],
    ];
    for (const [filename, bytes, type] of documents) {
      const response = await upload(test.key, pythonSdkUpload('kb-main', bytes, filename, type, 120));
      assert.equal(response.statusCode, 200, response.body);
      const file = response.json() as { id: string; purpose: string; filename: string };
      assert.equal(file.purpose, 'retrieval');
      assert.equal(file.filename, filename);
      fileIds.set(filename, file.id);
    }
    const secret = await upload(
      otherKey,
      pythonSdkUpload('kb-other', Buffer.from('The vault password of the other team is violet heron.'), 'vault.txt', 'text/plain'),
    );
    assert.equal(secret.statusCode, 200, secret.body);
  });
  beforeEach(() => {
    engine.reset();
    engine.setDefault((request) =>
      request.body['stream'] === true
        ? sseReply(vllmReasoningStream({ content: ['From the document.'] }))
        : { kind: 'json', body: vllmCompletion({ content: 'From the document.' }) },
    );
  });
  after(async () => {
    await test.close();
    await engine.close();
  });

  it('answers from the right passage of text, HTML and PDF files (zhipuai Node SDK), the template filled in', async () => {
    const client = new ZhipuAI({ apiKey: test.key, baseUrl: `${base}/paas/v4`, cacheToken: false });
    const questions: [string, RegExp, RegExp][] = [
      ['At what temperature does the Zorblax coolant boil?', /412 kelvin/, /Marrow Bridge|Ada Pennick/],
      ['Who first lit the Kestrel Point lighthouse?', /first lit in 1893 by the keeper Ada Pennick/, /Zorblax|Marrow Bridge/],
      ['How long is the Marrow Bridge?', /spans 740 metres across the Quell river/, /Zorblax|Ada Pennick/],
    ];
    for (const [index, [question, expected, unrelated]] of questions.entries()) {
      const answer = (await client.createCompletions({
        model: 'glm-4.7',
        messages: [{ role: 'user', content: question }],
        tools: [{ type: 'retrieval', retrieval: { knowledge_id: 'kb-main', prompt_template: 'Document:\n{{knowledge}}\n\nQ: {{question}}' } }],
        stream: false,
      })) as { choices: { message: { content: string } }[] };
      assert.equal(answer.choices[0]?.message.content, 'From the document.');
      const prompt = promptSent(index);
      assert.match(prompt, expected);
      assert.doesNotMatch(prompt, unrelated, 'passages without the question words stay out');
      assert.ok(prompt.startsWith('Document:\n') && prompt.endsWith(`Q: ${question}`), prompt);
      assert.equal(engine.requests[index]?.body['tools'], undefined, 'the retrieval tool is not passed to the engine');
    }
    // The HTML went through the reader's extraction: no navigation or footer in the passages.
    assert.doesNotMatch(promptSent(1), /Home|About|heritage society/);
  });

  it('uses the default template when none is given, on streamed and async calls too', async () => {
    const tools = [{ type: 'retrieval', retrieval: { knowledge_id: 'kb-main' } }];
    const messages = [{ role: 'user', content: 'How long is the Marrow Bridge?' }];
    const streamed = parseSseBody((await postJson(test, chatPath, { model: 'glm-4.7', messages, tools, stream: true })).body);
    assert.equal((streamed.at(-1) as { choices: { finish_reason: string }[] }).choices[0]?.finish_reason, 'stop');
    assert.match(promptSent(0), /Answer the question from the document below[\s\S]*740 metres[\s\S]*How long is the Marrow Bridge\?/);

    const submitted = await postJson(test, '/paas/v4/async/chat/completions', { model: 'glm-4.7', messages, tools });
    assert.equal(submitted.statusCode, 200, submitted.body);
    const answer = await waitForTask(test, (submitted.json() as { id: string }).id);
    assert.equal(answer.task_status, 'SUCCESS', JSON.stringify(answer));
    assert.match(promptSent(1), /740 metres/);
  });

  it("refuses another key's knowledge id exactly as an unknown one (404), on both sides", async () => {
    const ask = (key: string, knowledgeId: string) =>
      test.app.inject({
        method: 'POST',
        url: chatPath,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        payload: {
          model: 'glm-4.7',
          messages: [{ role: 'user', content: 'What is the vault password?' }],
          tools: [{ type: 'retrieval', retrieval: { knowledge_id: knowledgeId } }],
        },
      });
    const foreign = await ask(test.key, 'kb-other');
    assertPlatformError(foreign, { status: 404, code: '404', mentions: ['kb-other'] });
    const unknown = await ask(test.key, 'kb-never');
    assertPlatformError(unknown, { status: 404, code: '404', mentions: ['kb-never'] });
    assert.equal(
      foreign.json<{ error: { message: string } }>().error.message.replace('kb-other', 'X'),
      unknown.json<{ error: { message: string } }>().error.message.replace('kb-never', 'X'),
    );
    assertPlatformError(await ask(otherKey, 'kb-main'), { status: 404, code: '404', mentions: ['kb-main'] });
    assert.equal(engine.requests.length, 0, 'no engine call, no passage of another key anywhere');
    const own = await ask(otherKey, 'kb-other');
    assert.equal(own.statusCode, 200, own.body);
    assert.match(promptSent(0), /violet heron/);
  });

  const waitForSettled = async (keyId: string) => {
    for (let tries = 0; (await test.platform.keyAdmin.get(keyId))?.creditHeld !== 0; tries += 1) {
      if (tries > 200) assert.fail('reservations still open after 5 s');
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };

  it("refuses an async call naming an unknown or another key's knowledge id at submit, as sync chat does: no task, nothing held", async () => {
    const prices = { 'glm-4.7': { perCall: 100, perPromptToken: 2, perCompletionToken: 4 } };
    // Enough for sync chat's reservation (made before its handler looks at the knowledge id).
    const { key } = await test.platform.keyAdmin.create({ policy: { credit: { balance: 10_000_000, prices } } });
    const keyId = key.split('.')[0] ?? '';
    const body = (knowledgeId: string) => ({
      model: 'glm-4.7',
      messages: [{ role: 'user', content: 'What is the vault password?' }],
      tools: [{ type: 'retrieval', retrieval: { knowledge_id: knowledgeId } }],
    });
    const submit = (knowledgeId: string, headers: Record<string, string> = { authorization: `Bearer ${key}` }) =>
      postJson(test, '/paas/v4/async/chat/completions', body(knowledgeId), headers);
    for (const knowledgeId of ['kb-main', 'kb-other', 'kb-never']) {
      const refused = await submit(knowledgeId);
      assertPlatformError(refused, { status: 404, code: '404', mentions: [knowledgeId] });
      const sync = await postJson(test, chatPath, body(knowledgeId), { authorization: `Bearer ${key}` });
      assert.equal(refused.body, sync.body, 'the same error body as sync chat');
    }
    const tasks = await test.platform.database.db
      .selectFrom('tasks')
      .select((builder) => builder.fn.countAll<number>().as('count'))
      .where('owner_key_id', '=', keyId)
      .executeTakeFirstOrThrow();
    assert.equal(Number(tasks.count), 0, 'no task row');
    await waitForSettled(keyId);
    assert.equal(await test.platform.credits.balance(keyId), 10_000_000, 'nothing charged');
    assert.equal(engine.requests.length, 0, 'no engine call');
    assertPlatformError(await submit('kb-other', { authorization: test.authorization }), { status: 404, code: '404', mentions: ['kb-other'] });
    const own = await submit('kb-other', { authorization: `Bearer ${otherKey}` });
    assert.equal(own.statusCode, 200, own.body);
    const answer = await waitForTask({ ...test, authorization: `Bearer ${otherKey}` }, (own.json() as { id: string }).id);
    assert.equal(answer.task_status, 'SUCCESS', JSON.stringify(answer));
    assert.match(promptSent(0), /violet heron/);
  });

  it('lists knowledge bases with their files and passage counts (admin API)', async () => {
    const response = await test.app.inject({ method: 'GET', url: '/admin/knowledge', headers: { authorization: `Bearer ${adminKey}` } });
    assert.equal(response.statusCode, 200, response.body);
    const bases = (
      response.json() as { data: { owner_key_id: string; knowledge_id: string; passages: number; files: { filename: string; passages: number }[] }[] }
    ).data;
    const main = bases.find((entry) => entry.knowledge_id === 'kb-main');
    assert.deepEqual(main?.files.map((file) => file.filename).sort(), ['bridge.pdf', 'lighthouse.html', 'notes.md']);
    assert.ok(main.files.every((file) => file.passages >= 1));
    assert.equal(
      main.passages,
      main.files.reduce((sum, file) => sum + file.passages, 0),
    );
    assert.equal(main.owner_key_id, test.key.split('.')[0]);
    assert.ok(bases.some((entry) => entry.knowledge_id === 'kb-other' && entry.owner_key_id === otherKey.split('.')[0]));
    const scoped = await test.app.inject({
      method: 'GET',
      url: `/admin/knowledge?key_id=${otherKey.split('.')[0]}`,
      headers: { authorization: `Bearer ${adminKey}` },
    });
    assert.deepEqual(
      (scoped.json() as { data: { knowledge_id: string }[] }).data.map((entry) => entry.knowledge_id),
      ['kb-other'],
    );
    const userList = await test.app.inject({ method: 'GET', url: '/admin/knowledge', headers: { authorization: test.authorization } });
    assertPlatformError(userList, { status: 434, code: '1220' });
  });

  it('refuses what it cannot index, keeping nothing: a DOCX, a binary file, no knowledge_id, sentence_size out of range', async () => {
    const before = (await test.platform.files.list(test.key.split('.')[0] ?? '', { limit: 100, order: 'desc' })).files.length;
    const docx = Buffer.concat([Buffer.from('PK\x03\x04', 'latin1'), Buffer.alloc(64)]);
    const cases: [FormEntry[], string, string][] = [
      [pythonSdkUpload('kb-main', docx, 'report.docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'), '1214', 'PDF'],
      [pythonSdkUpload('kb-main', Buffer.from([0xff, 0xfe, 0x00, 0x01, 0x80]), 'blob.bin', 'application/octet-stream'), '1214', 'file'],
      [
        [
          ['purpose', 'retrieval'],
          ['file', Buffer.from('text'), 'a.txt', 'text/plain'],
        ],
        '1213',
        'knowledge_id',
      ],
      [pythonSdkUpload('kb-main', Buffer.from('text'), 'a.txt', 'text/plain', 5), '1214', 'sentence_size'],
    ];
    for (const [entries, code, mention] of cases) {
      assertPlatformError(await upload(test.key, entries), { status: 400, code, mentions: [mention] });
    }
    const afterwards = (await test.platform.files.list(test.key.split('.')[0] ?? '', { limit: 100, order: 'desc' })).files.length;
    assert.equal(afterwards, before);
  });

  it('reads a large HTML page off the event loop: other requests are served meanwhile, and text over the cap is refused', async () => {
    const paragraph = '<p>The quick brown fox jumps over the lazy dog near the river bank every morning.</p>\n';
    const page = `<!doctype html><html><body><article>${paragraph.repeat(Math.ceil((2 * 1024 * 1024) / paragraph.length))}</article></body></html>`;
    let finished = false;
    const pending = upload(test.key, pythonSdkUpload('kb-large', Buffer.from(page), 'large.html', 'text/html')).then((response) => {
      finished = true;
      return response;
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const listed = await test.app.inject({ method: 'GET', url: '/paas/v4/files', headers: { authorization: test.authorization } });
    assert.equal(listed.statusCode, 200);
    assert.equal(finished, false, 'the listing was answered while the page was still being read');
    assertPlatformError(await pending, { status: 400, code: '1214', mentions: ['1000000'] });
  });

  it("deleting a file removes its passages: the question no longer finds them, and the last file's going ends the knowledge base", async () => {
    const deleted = await test.app.inject({
      method: 'DELETE',
      url: `/paas/v4/files/${fileIds.get('notes.md')}`,
      headers: { authorization: test.authorization },
    });
    assert.equal(deleted.statusCode, 200, deleted.body);
    const tools = [{ type: 'retrieval', retrieval: { knowledge_id: 'kb-main' } }];
    const response = await postJson(test, chatPath, {
      model: 'glm-4.7',
      messages: [{ role: 'user', content: 'At what temperature does the Zorblax coolant boil?' }],
      tools,
    });
    assert.equal(response.statusCode, 200, response.body);
    assert.doesNotMatch(promptSent(0), /412 kelvin/);
    const left = await test.platform.database.db
      .selectFrom('knowledge_passages')
      .select((builder) => builder.fn.countAll<number>().as('count'))
      .where('file_id', '=', fileIds.get('notes.md') ?? '')
      .executeTakeFirstOrThrow();
    assert.equal(Number(left.count), 0);

    for (const name of ['lighthouse.html', 'bridge.pdf']) {
      await test.app.inject({ method: 'DELETE', url: `/paas/v4/files/${fileIds.get(name)}`, headers: { authorization: test.authorization } });
    }
    assertPlatformError(await postJson(test, chatPath, { model: 'glm-4.7', messages: [{ role: 'user', content: 'Bridge?' }], tools }), {
      status: 404,
      code: '404',
      mentions: ['kb-main'],
    });
  });
});
