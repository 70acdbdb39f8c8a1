import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, describe, it } from 'node:test';
import { BlobFileStore } from '../../src/core/files/blob-file-store.ts';
import { abandonedUploadMs, fileBlobPrefix } from '../../src/core/files/file-limits.ts';
import { startServer, type ServerProcess } from '../helpers/cli-process.ts';
import { encodeForm } from '../helpers/multipart-form.ts';
import { digitalPdf } from '../helpers/rendered-documents.ts';
import { startTestPlatform } from '../helpers/test-platform.ts';
import { FileRepository } from '../../src/store/file-repository.ts';

const adminKey = 'ops.crash-secret-0123456789';

/** A PDF of one page dense with text: reading it takes pdf.js a second or so, long enough to be killed midway. */
function densePdf(label: string): Promise<Buffer> {
  const lines = 4000;
  return digitalPdf([
    {
      width: 595,
      height: 842,
      items: Array.from({ length: lines }, (_, line) => ({
        text: `${label} line ${line}: the harbour master logs each ship that enters the bay.`,
        x: 20,
        y: 10 + (line * 820) / lines,
        size: 820 / lines,
      })),
    },
  ]);
}

async function uploadRetrieval(baseUrl: string, name: string, pdf: Buffer): Promise<number> {
  const { payload, contentType } = await encodeForm([
    ['purpose', 'retrieval'],
    ['knowledge_id', 'crash'],
    ['file', pdf, name, 'application/pdf'],
  ]);
  try {
    const response = await fetch(`${baseUrl}/paas/v4/files`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminKey}`, 'content-type': contentType },
      body: payload,
    });
    await response.arrayBuffer();
    return response.status;
  } catch {
    // The server was killed under it.
    return 0;
  }
}

async function getJson(baseUrl: string, path: string): Promise<Record<string, unknown>> {
  const response = await fetch(`${baseUrl}${path}`, { headers: { authorization: `Bearer ${adminKey}` } });
  assert.equal(response.status, 200, path);
  return (await response.json()) as Record<string, unknown>;
}

/** Every file under `folder`, relative paths. */
function filesUnder(folder: string): string[] {
  if (!existsSync(folder)) return [];
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

describe('retrieval uploads survive a crash: the process killed midway', () => {
  const folder = mkdtempSync(join(tmpdir(), 'retrieval-crash-'));
  const environment = { MODEL_PLATFORM_DATA_DIR: join(folder, 'data'), MODEL_PLATFORM_BOOTSTRAP_KEY: adminKey };
  let server: ServerProcess | undefined;
  after(async () => {
    await server?.stop();
    rmSync(folder, { recursive: true, force: true });
  });

  it(
    'after a restart every listed retrieval file has its passages, none is listed without them, and temporary files are gone',
    { timeout: 180_000 },
    async () => {
      const pdfs = await Promise.all(Array.from({ length: 8 }, (_, index) => densePdf(`file ${index}`)));
      server = await startServer(environment);
      const first = server;
      // Eight uploads at once; the process is killed as soon as the first one is answered.
      const uploads = pdfs.map((pdf, index) => uploadRetrieval(first.baseUrl, `ledger-${index}.pdf`, pdf));
      await Promise.race(uploads);
      first.child.kill('SIGKILL');
      await first.exited;
      const statuses = await Promise.all(uploads);
      assert.ok(statuses.includes(200), `some upload finished before the kill: ${statuses.join(', ')}`);
      assert.ok(statuses.includes(0), `some upload was cut by the kill: ${statuses.join(', ')}`);

      // What a crash mid-write leaves in the blob store's temporary folder, untouched since long enough.
      const temporaryFolder = join(folder, 'data', 'blobs', 'tmp');
      mkdirSync(temporaryFolder, { recursive: true });
      const leftover = join(temporaryFolder, 'upload-cut-by-the-crash');
      writeFileSync(leftover, Buffer.alloc(64 * 1024));
      const anHourAgo = new Date(Date.now() - 3_600_000);
      utimesSync(leftover, anHourAgo, anHourAgo);

      server = await startServer(environment);
      const listed = ((await getJson(server.baseUrl, '/paas/v4/files?purpose=retrieval')) as { data: { id: string }[] }).data.map((file) => file.id);
      const knowledge = (await getJson(server.baseUrl, '/admin/knowledge')) as { data: { files: { file_id: string; passages: number }[] }[] };
      const passages = new Map(knowledge.data.flatMap((base) => base.files.map((file) => [file.file_id, file.passages] as const)));
      assert.ok(listed.length >= statuses.filter((status) => status === 200).length, `answered uploads are listed: ${listed.length}`);
      for (const id of listed) assert.ok((passages.get(id) ?? 0) > 0, `listed file ${id} has passages`);
      // Start-up swept the temporary folder (the sweep runs as the server starts).
      for (let tries = 0; tries < 50 && existsSync(leftover); tries++) await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal(existsSync(leftover), false, `left in tmp/: ${filesUnder(temporaryFolder).join(', ')}`);
    },
  );
});

describe('the file sweep removes abandoned pending uploads with their bytes', () => {
  it('deletes a pending upload begun before the grace, keeps a recent one and every ready file', async () => {
    const test = await startTestPlatform();
    try {
      let now = Date.now() - 2 * abandonedUploadMs;
      const store = new BlobFileStore(new FileRepository(test.platform.database), test.platform.blobs, { now: () => now });
      const stage = (name: string) => store.stage('key-a', { filename: name, content: Readable.from([Buffer.from(`bytes of ${name}`)]) });
      const abandoned = await (await stage('abandoned.txt')).commit('retrieval', { pending: true });
      const ready = await (await stage('ready.txt')).commit('retrieval');
      now = Date.now();
      const recent = await (await stage('recent.txt')).commit('retrieval', { pending: true });

      assert.equal(await store.deleteAbandonedUploads(Date.now() - abandonedUploadMs), 1);
      assert.equal(await store.read('key-a', abandoned.id), undefined, 'its record is gone');
      assert.equal(await test.platform.blobs.get(`${fileBlobPrefix}${abandoned.id}`), undefined, 'and its bytes');
      assert.equal((await store.read('key-a', recent.id))?.toString(), 'bytes of recent.txt', 'one still being indexed stays');
      assert.equal(await store.get('key-a', recent.id), undefined, 'but is not shown');
      assert.deepEqual(
        (await store.list('key-a', { limit: 10, order: 'asc' })).files.map((file) => file.id),
        [ready.id],
      );
    } finally {
      await test.close();
    }
  });
});
