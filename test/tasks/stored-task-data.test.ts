import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApiError } from '../../src/core/errors/api-error.ts';
import { imageTaskRequest, imageTaskResult } from '../../src/core/media/media-task-data.ts';
import type { TaskHandler, TaskRecord } from '../../src/core/tasks/task.ts';
import type { Database } from '../../src/store/database.ts';
import type { TaskWorkers } from '../../src/tasks/task-workers.ts';
import { databaseTargets } from '../helpers/test-databases.ts';
import { createTestDatabase, testTaskService, waitForStatus, type TestDatabase } from './task-test-kit.ts';

const sqlite = databaseTargets[0];

/** Runs `image` tasks on what their stored request reads back as, and stores one key per prompt. */
const imageHandler: TaskHandler = {
  kind: 'image',
  async run(task) {
    const job = imageTaskRequest.read(task);
    return { images: [{ key: `images/${job.prompt}.png` }] };
  },
};

const job = (prompt: unknown) => ({ model: 'glm-image', prompt, width: 1024, height: 1024, quality: 'standard' });

describe('stored task requests and results are read through their schemas', () => {
  let testDatabase: TestDatabase;
  let database: Database;
  let service: TaskWorkers;

  before(async () => {
    assert.ok(sqlite !== undefined);
    testDatabase = await createTestDatabase(sqlite);
    database = await testDatabase.open();
    service = testTaskService({ database, handlers: [imageHandler] });
  });
  after(async () => {
    await service.close();
    await database.close();
    await testDatabase.drop();
  });

  const submit = (request: unknown) => service.submit({ kind: 'image', ownerKeyId: 'owner', model: 'glm-image', requestId: 'request-1', request });
  const setColumn = (task: TaskRecord, column: 'request' | 'result', text: string) =>
    database.db
      .updateTable('tasks')
      .set({ [column]: text })
      .where('id', '=', task.id)
      .execute();

  it('fails only the task whose stored request does not match, naming the field; the others run', async () => {
    // Submitted before the workers start, so the damaged rows are read in the same listing as the good one.
    const good = await submit(job('cat'));
    const wrongField = await submit(job(7));
    const notJson = await submit(job('dog'));
    await setColumn(notJson, 'request', '{"model": "glm-image", "prompt": ');
    service.start();

    const done = await waitForStatus(service, good, 'SUCCESS');
    assert.deepEqual(imageTaskResult.read(done), { images: [{ key: 'images/cat.png' }] });
    const failed = await waitForStatus(service, wrongField, 'FAIL');
    assert.equal(failed.error?.code, '500');
    assert.match(failed.error?.message ?? '', new RegExp(`stored request of image task '${wrongField.id}' cannot be read: /prompt `));
    const unparsable = await waitForStatus(service, notJson, 'FAIL');
    assert.match(unparsable.error?.message ?? '', new RegExp(`stored request of image task '${notJson.id}' cannot be read: it is not JSON`));
  });

  it('refuses a stored result that does not match, with the task and the field', async () => {
    const task = await waitForStatus(service, await submit(job('bird')), 'SUCCESS');
    await setColumn(task, 'result', '{"images":[{"key":5}]}');
    const damaged = await service.get(task.id, task.ownerKeyId);
    assert.ok(damaged !== undefined);
    assert.throws(
      () => imageTaskResult.read(damaged),
      (error: unknown) =>
        error instanceof ApiError && error.code === '500' && /result of image task '.+' cannot be read: \/images\/0\/key /.test(error.message),
    );
  });
});
