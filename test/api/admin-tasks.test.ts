import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TaskRepository } from '../../src/store/task-repository.ts';
import { assertPlatformError } from '../helpers/error-assertions.ts';
import { startTestPlatform, type TestPlatform } from '../helpers/test-platform.ts';

interface ListedTask {
  id: string;
  kind: string;
  key_id: string;
  task_status: string;
  attempts: number;
  error: { code: string; message: string } | null;
  media: { type: string; url: string }[];
}
interface TaskPage {
  data: ListedTask[];
  has_more: boolean;
  next_cursor: string | null;
}

describe('GET /admin/tasks: async tasks for operators and key holders', () => {
  let test: TestPlatform;
  let admin: string;
  let ownerA: { id: string; authorization: string };
  let ownerB: { id: string; authorization: string };
  const made = new Map<string, string>();

  before(async () => {
    test = await startTestPlatform();
    admin = `Bearer ${(await test.platform.keyAdmin.create({ name: 'ops', policy: { scope: 'admin' } })).key}`;
    const keyOf = async (name: string) => {
      const created = await test.platform.keyAdmin.create({ name });
      return { id: created.view.id, authorization: `Bearer ${created.key}` };
    };
    ownerA = await keyOf('a');
    ownerB = await keyOf('b');
    const tasks = new TaskRepository(test.platform.database);
    // Five tasks of A a second apart (image, chat alternately), two of B: one image that succeeded, one video that failed.
    const insert = async (id: string, kind: string, owner: string, createdAt: number) => {
      await tasks.insert({ id, kind, ownerKeyId: owner, model: 'm', requestId: `r-${id}`, request: {}, createdAt, deadlineAt: createdAt + 600_000 });
      made.set(id, owner);
    };
    const start = Date.now() - 60_000;
    for (let index = 0; index < 5; index += 1) await insert(`a${index}`, index % 2 === 0 ? 'image' : 'chat', ownerA.id, start + index * 1000);
    await insert('b-image', 'image', ownerB.id, start + 10_000);
    await insert('b-video', 'video', ownerB.id, start + 11_000);
    const now = Date.now();
    const claimed = await tasks.claim('b-image', 'worker', now + 60_000, now, 3);
    assert.ok(claimed);
    await tasks.complete({ id: 'b-image', leaseOwner: 'worker', attempt: 1 }, { images: [{ key: 'images/b.png' }] }, now);
    await tasks.claim('b-video', 'worker', now + 60_000, now, 3);
    await tasks.fail({ id: 'b-video', leaseOwner: 'worker', attempt: 1 }, { code: '1301', message: 'The engine refused the prompt.' }, now);
  });
  after(() => test.close());

  const list = async (query: string, authorization = admin) => {
    const response = await test.app.inject({ url: `/admin/tasks${query}`, headers: { authorization } });
    return response;
  };
  const page = async (query: string, authorization = admin) => {
    const response = await list(query, authorization);
    assert.equal(response.statusCode, 200, response.body);
    return response.json() as TaskPage;
  };

  it('shows an admin every key’s tasks newest first, with attempts, errors and media links', async () => {
    const answer = await page('');
    assert.deepEqual(
      answer.data.map((task) => task.id),
      ['b-video', 'b-image', 'a4', 'a3', 'a2', 'a1', 'a0'],
    );
    const [video, image] = answer.data;
    assert.deepEqual([video?.task_status, video?.attempts, video?.error], ['FAIL', 1, { code: '1301', message: 'The engine refused the prompt.' }]);
    assert.equal(image?.task_status, 'SUCCESS');
    assert.equal(image?.media.length, 1);
    assert.match(image?.media[0]?.url ?? '', /^http:\/\/[^/]+\/blobs\/images\/b\.png\?expires=\d+&signature=/);
    assert.equal(answer.has_more, false);
    assert.equal(answer.next_cursor, null);
  });

  it('pages with next_cursor until the last page, each task once', async () => {
    const seen: string[] = [];
    let query = '?limit=3';
    for (;;) {
      const answer = await page(query);
      seen.push(...answer.data.map((task) => task.id));
      if (answer.next_cursor === null) break;
      assert.equal(answer.has_more, true);
      query = `?limit=3&after=${answer.next_cursor}`;
    }
    assert.deepEqual(seen, ['b-video', 'b-image', 'a4', 'a3', 'a2', 'a1', 'a0']);
  });

  it('filters by key, status and kind', async () => {
    assert.deepEqual(
      (await page(`?key_id=${ownerB.id}`)).data.map((task) => task.id),
      ['b-video', 'b-image'],
    );
    assert.deepEqual(
      (await page('?status=FAIL')).data.map((task) => task.id),
      ['b-video'],
    );
    assert.deepEqual(
      (await page('?kind=chat')).data.map((task) => task.id),
      ['a3', 'a1'],
    );
  });

  it('answers another key with its own tasks only, and refuses it another key’s', async () => {
    const own = await page('', ownerA.authorization);
    assert.deepEqual(
      own.data.map((task) => task.id),
      ['a4', 'a3', 'a2', 'a1', 'a0'],
    );
    assert.ok(own.data.every((task) => task.key_id === ownerA.id));
    assert.equal((await page(`?key_id=${ownerA.id}`, ownerA.authorization)).data.length, 5);
    assertPlatformError(await list(`?key_id=${ownerB.id}`, ownerA.authorization), { status: 403, code: '403', mentions: ['own tasks'] });
    // The other admin routes stay admin-only.
    assertPlatformError(await test.app.inject({ url: '/admin/keys', headers: { authorization: ownerA.authorization } }), { status: 434, code: '1220' });
  });

  it('refuses malformed paging and filters with the field named', async () => {
    assertPlatformError(await list('?limit=0'), { status: 400, code: '1214', mentions: ['limit'] });
    assertPlatformError(await list('?limit=101'), { status: 400, code: '1214', mentions: ['limit'] });
    assertPlatformError(await list('?after=nonsense'), { status: 400, code: '1214', mentions: ['after'] });
    assertPlatformError(await list('?status=DONE'), { status: 400, code: '1214', mentions: ['status'] });
  });
});
