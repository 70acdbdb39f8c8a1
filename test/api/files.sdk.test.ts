import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import OpenAI, { toFile } from 'openai';
import { ZhipuAI } from 'zhipuai-sdk-nodejs-v4';
import { pythonSdkHeaders, sendRawRequest } from '../helpers/python-sdk-request.ts';
import { startTestPlatform, type TestPlatform } from '../helpers/test-platform.ts';

/** The clients, unmodified, against our server over real HTTP. */
describe('files through the official clients', () => {
  let test: TestPlatform;
  let base: string;
  before(async () => {
    test = await startTestPlatform();
    await test.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(test.app.server.address() as AddressInfo).port}`;
  });
  after(() => test.close());

  it('openai: files.create, list (cursor pages), content, delete', async () => {
    const client = new OpenAI({ apiKey: test.key, baseURL: `${base}/paas/v4/`, maxRetries: 0 });
    const glossary = Buffer.from('source,target\nmodel,模型\n');
    const created = await client.files.create({ file: await toFile(glossary, 'glossary.csv', { type: 'text/csv' }), purpose: 'user_data' });
    assert.equal(created.object, 'file');
    assert.equal(created.filename, 'glossary.csv');
    assert.equal(created.purpose, 'user_data');
    assert.equal(created.bytes, glossary.byteLength);
    const others = await Promise.all(
      ['a', 'b'].map(async (name) => client.files.create({ file: await toFile(Buffer.from(name), `${name}.txt`), purpose: 'user_data' })),
    );

    // The SDK follows has_more with after=<last id>: three files in pages of two.
    const seen: string[] = [];
    for await (const file of client.files.list({ limit: 2, order: 'asc' })) seen.push(file.id);
    assert.equal(seen.length, 3);
    assert.deepEqual([...seen].sort(), [created.id, ...others.map((file) => file.id)].sort());
    assert.equal(seen[0], created.id);

    const content = await client.files.content(created.id);
    assert.deepEqual(Buffer.from(await content.arrayBuffer()), glossary);

    for (const id of seen) assert.deepEqual(await client.files.delete(id), { id, deleted: true, object: 'file' });
    await assert.rejects(client.files.content(created.id), (error: unknown) => error instanceof OpenAI.NotFoundError);
  });

  it('Python SDK: files.delete as httpx sends it (JSON content type, no body, no Content-Length), and with Content-Length 0', async () => {
    const { port } = test.app.server.address() as AddressInfo;
    const client = new OpenAI({ apiKey: test.key, baseURL: `${base}/paas/v4/`, maxRetries: 0 });
    for (const extraHeaders of [[], [['Content-Length', '0']]] as [string, string][][]) {
      const created = await client.files.create({ file: await toFile(Buffer.from('a,b\n'), 'terms.csv'), purpose: 'user_data' });
      const headers = [...pythonSdkHeaders(test.key), ...extraHeaders];
      const deleted = await sendRawRequest(port, { method: 'DELETE', path: `/api/paas/v4/files/${created.id}`, headers });
      assert.equal(deleted.status, 200, deleted.body);
      assert.deepEqual(JSON.parse(deleted.body), { id: created.id, deleted: true, object: 'file' });
      const again = await sendRawRequest(port, { method: 'DELETE', path: `/api/paas/v4/files/${created.id}`, headers });
      assert.equal(again.status, 404, again.body);
    }
  });

  it('an empty JSON body is still refused (1210) where a route takes a body', async () => {
    const { port } = test.app.server.address() as AddressInfo;
    const headers = [...pythonSdkHeaders(test.key), ['Content-Length', '0']] as [string, string][];
    const response = await sendRawRequest(port, { method: 'POST', path: '/paas/v4/chat/completions', headers });
    assert.equal(response.status, 400, response.body);
    assert.equal((JSON.parse(response.body) as { error: { code: string } }).error.code, '1210');
  });

  it('zhipuai Node SDK: files.create and findList', async () => {
    const client = new ZhipuAI({ apiKey: test.key, baseUrl: `${base}/paas/v4` });
    const created = await client.files.create({ file: new Blob(['term,翻译\n']), purpose: 'agent' });
    assert.match(created.id, /^file-/);
    assert.equal(created.purpose, 'agent');
    const listed = await client.files.findList({ purpose: 'agent' });
    assert.equal(listed.object, 'list');
    assert.deepEqual(
      listed.data.map((file) => file.id),
      [created.id],
    );
    assert.equal(listed.data[0]?.bytes, Buffer.byteLength('term,翻译\n'));
    assert.equal(await test.platform.files.read(test.key.split('.')[0] ?? '', created.id).then(String), 'term,翻译\n');
  });
});
