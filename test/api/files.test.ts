import assert from 'node:assert/strict';
import { once } from 'node:events';
import { existsSync, readdirSync } from 'node:fs';
import { connect, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { FileDeleted, FileList, FileObject } from '../../src/api/files/files.schema.ts';
import { formatApiKey } from '../../src/core/auth/api-key.ts';
import { createAjv } from '../../src/core/json-schema/create-ajv.ts';
import { assertPlatformError } from '../helpers/error-assertions.ts';
import { encodeForm, type FormEntry } from '../helpers/multipart-form.ts';
import { databaseTargets, reportSkippedPostgres } from '../helpers/test-databases.ts';
import { startTestPlatform, type TestPlatform } from '../helpers/test-platform.ts';

reportSkippedPostgres();

const url = '/paas/v4/files';
const maxUploadBytes = 100 * 1024 * 1024;
const ajv = createAjv(false);
const validFileObject = ajv.compile(FileObject);
const validFileList = ajv.compile(FileList);
const validFileDeleted = ajv.compile(FileDeleted);

interface WireFile {
  id: string;
  object: string;
  bytes: number;
  created_at: number;
  filename: string;
  purpose: string;
}

/** Uploaded files' bytes on local disk (LocalBlobStore under <dataDir>/blobs, keys `files/<id>`). */
function storedBlobs(test: TestPlatform): string[] {
  const folder = join(test.platform.settings.dataDir, 'blobs', 'files', 'files');
  return existsSync(folder) ? readdirSync(folder).sort() : [];
}

/** Files being written: a refused upload must leave none. */
function temporaryBlobs(test: TestPlatform): string[] {
  const folder = join(test.platform.settings.dataDir, 'blobs', 'tmp');
  return existsSync(folder) ? readdirSync(folder) : [];
}

async function fileRows(test: TestPlatform): Promise<number> {
  const rows = await test.platform.database.db.selectFrom('files').select('id').execute();
  return rows.length;
}

function client(test: TestPlatform, authorization: string) {
  return {
    upload: async (entries: readonly FormEntry[]) => {
      const { payload, contentType } = await encodeForm(entries);
      return test.app.inject({ method: 'POST', url, headers: { authorization, 'content-type': contentType }, payload });
    },
    get: (path: string) => test.app.inject({ method: 'GET', url: path, headers: { authorization } }),
    delete: (path: string) => test.app.inject({ method: 'DELETE', url: path, headers: { authorization } }),
  };
}

/** A multipart body whose file part is `fileBytes` long, generated chunk by chunk so the test never holds it. */
function streamedUpload(fileBytes: number) {
  const boundary = 'model-platform-files-boundary';
  const head =
    `--${boundary}\r\nContent-Disposition: form-data; name="purpose"\r\n\r\nuser_data\r\n` +
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`;
  async function* body() {
    yield Buffer.from(head);
    const chunk = Buffer.alloc(1024 * 1024, 'b');
    for (let left = fileBytes; left > 0; left -= chunk.length) yield chunk.subarray(0, Math.min(left, chunk.length));
    yield Buffer.from(`\r\n--${boundary}--\r\n`);
  }
  return { payload: Readable.from(body()), contentType: `multipart/form-data; boundary=${boundary}` };
}

for (const target of databaseTargets) {
  describe(`files on ${target.name}`, () => {
    let databaseUrl: string | undefined;
    let test: TestPlatform;
    let api: ReturnType<typeof client>;
    before(async () => {
      databaseUrl = await target.create();
      test = await startTestPlatform(databaseUrl === undefined ? {} : { databaseUrl });
      api = client(test, test.authorization);
    });
    after(async () => {
      await test.close();
      await target.drop(databaseUrl);
    });

    it('uploads, lists, serves the exact bytes, deletes the record and the bytes, then answers 404', async () => {
      const glossary = Buffer.from('source,target\nhello,你好\nworld,世界\n');
      const before = Math.floor(Date.now() / 1000);
      const uploaded = await api.upload([
        ['purpose', 'user_data'],
        ['file', glossary, '术语 glossary.csv', 'text/csv; charset=utf-8'],
      ]);
      assert.equal(uploaded.statusCode, 200, uploaded.body);
      const file = uploaded.json() as WireFile;
      assert.ok(validFileObject(file), JSON.stringify(validFileObject.errors));
      assert.deepEqual(Object.keys(file).sort(), ['bytes', 'created_at', 'filename', 'id', 'object', 'purpose']);
      assert.match(file.id, /^file-[0-9a-f]{24}$/);
      assert.equal(file.object, 'file');
      assert.equal(file.bytes, glossary.byteLength);
      assert.equal(file.filename, '术语 glossary.csv');
      assert.equal(file.purpose, 'user_data');
      assert.ok(file.created_at >= before && file.created_at <= Math.floor(Date.now() / 1000) + 1, 'created_at in Unix seconds');
      assert.deepEqual(storedBlobs(test), [file.id]);

      const listed = await api.get(url);
      assert.equal(listed.statusCode, 200);
      assert.ok(validFileList(listed.json()));
      assert.deepEqual(listed.json(), { object: 'list', data: [file], has_more: false });

      const content = await api.get(`${url}/${file.id}/content`);
      assert.equal(content.statusCode, 200);
      assert.deepEqual(content.rawPayload, glossary);
      assert.equal(content.headers['content-type'], 'text/csv');
      assert.equal(content.headers['content-length'], String(glossary.byteLength));
      assert.equal(content.headers['x-content-type-options'], 'nosniff');
      assert.equal(content.headers['content-disposition'], `attachment; filename="__ glossary.csv"; filename*=UTF-8''%E6%9C%AF%E8%AF%AD%20glossary.csv`);

      const deleted = await api.delete(`${url}/${file.id}`);
      assert.equal(deleted.statusCode, 200);
      assert.ok(validFileDeleted(deleted.json()));
      assert.deepEqual(deleted.json(), { id: file.id, deleted: true, object: 'file' });
      assert.deepEqual(storedBlobs(test), [], 'the bytes are gone');
      assert.equal(await fileRows(test), 0, 'the record is gone');
      assertPlatformError(await api.get(`${url}/${file.id}/content`), { status: 404, code: '404', mentions: [file.id] });
      assertPlatformError(await api.delete(`${url}/${file.id}`), { status: 404, code: '404', mentions: [file.id] });
      assert.deepEqual((await api.get(url)).json(), { object: 'list', data: [], has_more: false });
    });

    it('takes the purpose after the file; a refused form leaves no bytes behind', async () => {
      const late = await api.upload([
        ['file', Buffer.from('a,b\n'), 'late.csv'],
        ['purpose', 'agent'],
      ]);
      assert.equal(late.statusCode, 200, late.body);
      assert.equal((late.json() as WireFile).purpose, 'agent');
      assert.equal((await api.get(`${url}/${(late.json() as WireFile).id}/content`)).headers['content-type'], 'application/octet-stream');

      // The file part is stored before the bad purpose is read: the refusal must delete it again.
      const refused = await api.upload([
        ['file', Buffer.from('x,y\n'), 'refused.csv'],
        ['purpose', 'assistants'],
      ]);
      assertPlatformError(refused, { status: 400, code: '1214', mentions: ['purpose'] });
      assert.deepEqual(storedBlobs(test), [(late.json() as WireFile).id]);
      assert.deepEqual(temporaryBlobs(test), []);
      assert.equal(await fileRows(test), 1);
      assert.equal((await api.delete(`${url}/${(late.json() as WireFile).id}`)).statusCode, 200);
    });

    it('pages the listing with limit, after and order, and filters by purpose', async () => {
      const ids: string[] = [];
      for (const [index, purpose] of ['user_data', 'agent', 'user_data', 'batch', 'user_data'].entries()) {
        const response = await api.upload([
          ['purpose', purpose],
          ['file', Buffer.from(`row ${index}\n`), `page-${index}.txt`, 'text/plain'],
        ]);
        ids.push((response.json() as WireFile).id);
      }
      const page = async (query: string) => {
        const response = await api.get(`${url}?${query}`);
        assert.equal(response.statusCode, 200, response.body);
        const body = response.json() as { data: WireFile[]; has_more: boolean };
        return { ids: body.data.map((file) => file.id), hasMore: body.has_more };
      };
      assert.deepEqual(await page(''), { ids: [...ids].reverse(), hasMore: false }, 'newest first by default');
      assert.deepEqual(await page('order=asc&limit=2'), { ids: ids.slice(0, 2), hasMore: true });
      assert.deepEqual(await page(`order=asc&limit=2&after=${ids[1]}`), { ids: ids.slice(2, 4), hasMore: true });
      assert.deepEqual(await page(`order=asc&limit=2&after=${ids[3]}`), { ids: ids.slice(4), hasMore: false });
      assert.deepEqual(await page(`order=desc&limit=3&after=${ids[4]}`), { ids: [ids[3], ids[2], ids[1]], hasMore: true });
      assert.deepEqual(await page('purpose=user_data&order=asc'), { ids: [ids[0], ids[2], ids[4]], hasMore: false });
      assert.deepEqual(await page(`purpose=user_data&order=asc&limit=1&after=${ids[0]}`), { ids: [ids[2]], hasMore: true });
      assert.deepEqual(await page('purpose=retrieval'), { ids: [], hasMore: false });
      assertPlatformError(await api.get(`${url}?after=file-000000000000000000000000`), { status: 400, code: '1214', mentions: ['after'] });
      for (const id of ids) assert.equal((await api.delete(`${url}/${id}`)).statusCode, 200);
    });

    it('a key sees, reads and deletes only its own files; another key gets 404 as for an unknown id', async () => {
      const second = await test.platform.keys.create({ name: 'second' });
      const other = client(test, `Bearer ${formatApiKey(second)}`);
      const mine = (
        await api.upload([
          ['purpose', 'user_data'],
          ['file', Buffer.from('mine'), 'mine.txt'],
        ])
      ).json() as WireFile;
      const theirs = (
        await other.upload([
          ['purpose', 'user_data'],
          ['file', Buffer.from('theirs'), 'theirs.txt'],
        ])
      ).json() as WireFile;

      assert.deepEqual(
        ((await api.get(url)).json() as { data: WireFile[] }).data.map((file) => file.id),
        [mine.id],
      );
      assert.deepEqual(
        ((await other.get(url)).json() as { data: WireFile[] }).data.map((file) => file.id),
        [theirs.id],
      );
      assertPlatformError(await other.get(`${url}/${mine.id}/content`), { status: 404, code: '404', mentions: [mine.id] });
      assertPlatformError(await other.delete(`${url}/${mine.id}`), { status: 404, code: '404', mentions: [mine.id] });
      assertPlatformError(await api.get(`${url}?after=${theirs.id}`), { status: 400, code: '1214', mentions: ['after'] });
      assert.equal(await test.platform.files.read(second.id, mine.id), undefined, 'the store refuses another owner too');
      assert.deepEqual(await test.platform.files.read(second.id, theirs.id), Buffer.from('theirs'));
      assert.equal((await api.get(`${url}/${mine.id}/content`)).body, 'mine', 'still there for its owner');

      assert.equal((await api.delete(`${url}/${mine.id}`)).statusCode, 200);
      assert.equal((await other.delete(`${url}/${theirs.id}`)).statusCode, 200);
    });

    it('refuses the 101st file of a key (1214 naming the limit), storing nothing; another key is not affected', async () => {
      const ids: string[] = [];
      for (let index = 0; index < 100; index += 1) {
        const response = await api.upload([
          ['purpose', 'user_data'],
          ['file', Buffer.from(`file ${index}`), `f${index}.txt`],
        ]);
        assert.equal(response.statusCode, 200, response.body);
        ids.push((response.json() as WireFile).id);
      }
      const refused = await api.upload([
        ['purpose', 'user_data'],
        ['file', Buffer.from('one too many'), 'f100.txt'],
      ]);
      assertPlatformError(refused, { status: 400, code: '1214', mentions: ['file', '100 files'] });
      assert.equal(await fileRows(test), 100);
      assert.equal(storedBlobs(test).length, 100, 'no bytes of the refused file');
      assert.deepEqual(temporaryBlobs(test), []);
      const all = (await api.get(`${url}?limit=100`)).json() as { data: WireFile[]; has_more: boolean };
      assert.equal(all.data.length, 100);
      assert.equal(all.has_more, false);

      const second = await test.platform.keys.create({ name: 'limit-other' });
      const other = client(test, `Bearer ${formatApiKey(second)}`);
      const theirs = await other.upload([
        ['purpose', 'user_data'],
        ['file', Buffer.from('fine'), 'fine.txt'],
      ]);
      assert.equal(theirs.statusCode, 200, 'the limit is per key');

      assert.equal((await api.delete(`${url}/${ids[0]}`)).statusCode, 200);
      const again = await api.upload([
        ['purpose', 'user_data'],
        ['file', Buffer.from('room again'), 'f100.txt'],
      ]);
      assert.equal(again.statusCode, 200, 'a deleted file frees a place');
      for (const id of [...ids.slice(1), (again.json() as WireFile).id]) await api.delete(`${url}/${id}`);
      await other.delete(`${url}/${(theirs.json() as WireFile).id}`);
      assert.equal(await fileRows(test), 0);
    });
  });
}

describe('files: the 100 MB limit while streaming', () => {
  let test: TestPlatform;
  before(async () => {
    test = await startTestPlatform();
  });
  after(() => test.close());

  const send = (upload: ReturnType<typeof streamedUpload>) =>
    test.app.inject({ method: 'POST', url, headers: { authorization: test.authorization, 'content-type': upload.contentType }, payload: upload.payload });

  it('aborts 100 MB + 1 byte with HTTP 435 (docs/wire.md §2.2) and the platform error, leaving no record, no blob and no partial file', async () => {
    // Watches the store's writes: the upload must be aborted mid-write, not written whole and deleted after.
    const blobs = test.platform.blobs;
    const put = blobs.put.bind(blobs);
    const writes: string[] = [];
    blobs.put = async (...args) => {
      try {
        const info = await put(...args);
        writes.push(`stored ${info.bytes}`);
        return info;
      } catch (error) {
        writes.push('aborted');
        throw error;
      }
    };
    const response = await send(streamedUpload(maxUploadBytes + 1)).finally(() => {
      blobs.put = put;
    });
    assertPlatformError(response, { status: 435, code: '435', mentions: ["Invalid parameter 'file'", '100 MB', String(maxUploadBytes)] });
    assert.equal(response.headers['x-should-retry'], 'false');
    assert.deepEqual(writes, ['aborted']);
    assert.equal(await fileRows(test), 0);
    assert.deepEqual(storedBlobs(test), []);
    assert.deepEqual(temporaryBlobs(test), [], 'the partial write is removed');
  });

  it('a client that goes away mid-upload leaves no record and no partial file', async () => {
    await test.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = test.app.server.address() as AddressInfo;
    const boundary = 'model-platform-broken-upload';
    const head =
      `--${boundary}\r\nContent-Disposition: form-data; name="purpose"\r\n\r\nuser_data\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="cut.bin"\r\n\r\n`;
    const socket = connect(port, '127.0.0.1');
    await once(socket, 'connect');
    socket.write(
      `POST ${url} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${test.authorization}\r\n` +
        `Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${10 * 1024 * 1024}\r\n\r\n${head}`,
    );
    socket.write(Buffer.alloc(3 * 1024 * 1024, 'c'));
    // Wait until the upload is being written, then break the connection.
    const temporary = join(test.platform.settings.dataDir, 'blobs', 'tmp');
    const deadline = Date.now() + 30_000;
    while (temporaryBlobs(test).length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(existsSync(temporary), true, 'the upload reached the store');
    socket.destroy();
    const settled = Date.now() + 30_000;
    while (temporaryBlobs(test).length > 0 && Date.now() < settled) await new Promise((resolve) => setTimeout(resolve, 10));
    assert.deepEqual(temporaryBlobs(test), [], 'the partial write is removed');
    assert.deepEqual(storedBlobs(test), []);
    assert.equal(await fileRows(test), 0);
  });

  it('stores exactly 100 MB', async () => {
    const response = await send(streamedUpload(maxUploadBytes));
    assert.equal(response.statusCode, 200, response.body);
    const file = response.json() as WireFile;
    assert.equal(file.bytes, maxUploadBytes);
    assert.deepEqual(storedBlobs(test), [file.id]);
    const stored = await test.platform.blobs.get(`files/${file.id}`);
    assert.equal(stored?.info.bytes, maxUploadBytes);
    stored?.stream.destroy();
  });
});
