import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { AgentConversationStore } from '../../../src/agents/conversation-store.ts';
import { AgentConversationRepository } from '../../../src/store/agent-conversation-repository.ts';
import { openDatabase } from '../../../src/store/database.ts';
import { migrateToLatest } from '../../../src/store/migrate.ts';
import { databaseTargets, reportSkippedPostgres } from '../../helpers/test-databases.ts';

reportSkippedPostgres();

for (const target of databaseTargets) {
  describe(`agent conversations on ${target.name}`, () => {
    it('keeps JSON per owner, and saves a turn only over the revision it started from', async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'agent-conversations-'));
      const url = await target.create();
      const database = openDatabase({ databaseUrl: url, dataDir });
      try {
        await migrateToLatest(database);
        const conversations: AgentConversationStore = new AgentConversationRepository(database);
        const state = { plan: { title: '幻灯片', slides: [1, 2] }, pages: [{ key: 'slides/c1/r1/page-1.png', width: 960, height: 540 }] };
        const created = 1_700_000_000_000;
        await conversations.create({
          id: 'c1',
          agentId: 'slides_glm_agent',
          ownerKeyId: 'owner',
          revision: 1,
          messages: [{ role: 'user', content: 'hi' }],
          state,
          createdAt: created,
          updatedAt: created,
        });

        const found = await conversations.find('slides_glm_agent', 'owner', 'c1');
        assert.deepEqual(found, {
          id: 'c1',
          agentId: 'slides_glm_agent',
          ownerKeyId: 'owner',
          revision: 1,
          messages: [{ role: 'user', content: 'hi' }],
          state,
          createdAt: created,
          updatedAt: created,
        });
        assert.equal(await conversations.find('slides_glm_agent', 'other-owner', 'c1'), undefined, 'another key sees nothing');
        assert.equal(await conversations.find('general_translation', 'owner', 'c1'), undefined, 'another agent sees nothing');

        const turn = { id: 'c1', ownerKeyId: 'owner', messages: ['second'], state: { revised: true }, updatedAt: created + 1 };
        assert.equal(await conversations.update(turn, 1), true);
        assert.equal(await conversations.update({ ...turn, messages: ['late'] }, 1), false, 'a turn that started from revision 1 comes too late');
        assert.equal(await conversations.update({ ...turn, ownerKeyId: 'other-owner' }, 2), false, 'another key cannot write');
        const updated = await conversations.find('slides_glm_agent', 'owner', 'c1');
        assert.deepEqual([updated?.revision, updated?.messages, updated?.state, updated?.updatedAt], [2, ['second'], { revised: true }, created + 1]);
      } finally {
        await database.close();
        await target.drop(url);
        rmSync(dataDir, { recursive: true, force: true });
      }
    });
  });
}
