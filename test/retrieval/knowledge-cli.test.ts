import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { readSettings } from '../../src/core/config/settings.ts';
import { openPlatform } from '../../src/platform/open-platform.ts';
import { createKnowledgeIndex } from '../../src/store/knowledge/create-knowledge-index.ts';
import { runCli } from '../helpers/cli-process.ts';

describe('model-platform knowledge list', () => {
  let dataDir: string;
  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'knowledge-cli-'));
    const environment = { MODEL_PLATFORM_DATA_DIR: dataDir };
    const platform = await openPlatform(readSettings(environment), environment);
    try {
      const knowledge = createKnowledgeIndex(platform.database);
      for (const [owner, id, knowledgeId, passages] of [
        ['key-one', 'file-1', 'handbook', ['First passage.', 'Second passage.']],
        ['key-one', 'file-2', 'handbook', ['Third passage.']],
        ['key-two', 'file-3', 'recipes', ['Bread needs flour, water and salt.']],
      ] as const) {
        const stored = await platform.files.save(owner, {
          filename: `${id}.txt`,
          purpose: 'retrieval',
          content: Readable.from([Buffer.from(passages.join(' '))]),
        });
        await knowledge.addFile({ fileId: stored.id, ownerKeyId: owner, knowledgeId, sentenceSize: 300 }, passages);
      }
    } finally {
      await platform.close();
    }
  });
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('lists every knowledge base with its files and passage counts, or one key’s', async () => {
    const all = await runCli(['knowledge', 'list'], { MODEL_PLATFORM_DATA_DIR: dataDir });
    assert.equal(all.code, 0, all.stderr);
    assert.match(all.stdout, /^key\s+knowledge_id\s+file\s+filename\s+passages\s+characters\s+indexed/);
    assert.match(all.stdout, /key-one\s+handbook\s+2 files\s+3\s/);
    assert.match(all.stdout, /file-\w+\s+file-1\.txt\s+2\s/);
    assert.match(all.stdout, /key-two\s+recipes\s+1 files\s+1\s/);
    const one = await runCli(['knowledge', 'list', 'key-two'], { MODEL_PLATFORM_DATA_DIR: dataDir });
    assert.equal(one.code, 0, one.stderr);
    assert.doesNotMatch(one.stdout, /handbook/);
    const none = await runCli(['knowledge', 'list', 'key-none'], { MODEL_PLATFORM_DATA_DIR: dataDir });
    assert.equal(none.stdout.trim(), 'No knowledge bases.');
  });
});
