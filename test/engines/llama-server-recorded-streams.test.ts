import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { createOpenAiCompatibleBackend } from '../../src/backends/openai-compatible/openai-compatible.backend.ts';
import type { ChatModel } from '../../src/core/chat/chat-model.ts';
import type { ChatStreamPart } from '../../src/core/chat/chat-stream-part.ts';
import { unusedResources } from '../helpers/backend-resources.ts';
import { chatRequest } from '../helpers/chat-request.ts';
import { jsonReply, sseReply, startFakeOpenAiServer, type FakeOpenAiServer } from '../helpers/fake-openai-server.ts';

/**
 * Replays what a real llama-server sent (test/engines/fixtures, written by
 * record-llama-server-fixtures.ts) through the engine reader, byte for byte over a loopback socket,
 * and compares what the platform made of it with the stored expectation next to each recording
 * (`<name>.parts.json` for a stream, `<name>.result.json` for a whole answer). A change in how the
 * reader reads real engine output shows up here as a diff of the expectation. After re-recording,
 * or after a deliberate change in the reader, rewrite the expectations with
 * `UPDATE_FIXTURE_EXPECTATIONS=1 node --import tsx --test test/engines/llama-server-recorded-streams.test.ts`
 * and review the diff before committing it.
 */
const fixtures = new URL('./fixtures/', import.meta.url);
const updating = process.env['UPDATE_FIXTURE_EXPECTATIONS'] === '1';
const recordedStreams = readdirSync(fixtures)
  .filter((file) => file.endsWith('.chunks.txt'))
  .map((file) => file.slice(0, -'.chunks.txt'.length))
  .sort();

function compareWithExpectation(file: string, actual: unknown): void {
  const url = new URL(file, fixtures);
  if (updating) {
    writeFileSync(url, `${JSON.stringify(actual, null, 2)}\n`);
    return;
  }
  assert.ok(existsSync(url), `${file} is missing: write it with UPDATE_FIXTURE_EXPECTATIONS=1 and review it`);
  assert.deepStrictEqual(actual, JSON.parse(readFileSync(url, 'utf8')), `${file} no longer matches what the reader makes of the recording`);
}

/** The recording's payloads as llama-server framed them: one `data:` event each, then `[DONE]`. */
function recordedEvents(name: string): string[] {
  const lines = readFileSync(new URL(`${name}.chunks.txt`, fixtures), 'utf8').split('\n');
  return lines.filter((line) => line !== '').map((line) => `data: ${line}\n\n`);
}

describe('recorded llama-server answers replayed through the engine reader', () => {
  let engine: FakeOpenAiServer;
  let chat: ChatModel;

  before(async () => {
    engine = await startFakeOpenAiServer();
    const backend = createOpenAiCompatibleBackend({
      modelName: 'tiny-glm',
      entry: { backend: 'openai-compatible', baseUrl: engine.baseUrl },
      configDir: '.',
      resources: unusedResources,
    });
    assert.ok(backend.chat !== undefined);
    chat = backend.chat;
  });
  after(async () => {
    await engine.close();
  });

  it('finds the recordings', () => {
    assert.deepEqual(recordedStreams, ['llama-server-reasoning', 'llama-server-text', 'llama-server-tool-call']);
  });

  for (const name of recordedStreams) {
    it(`${name}: the stream's parts`, async () => {
      engine.enqueue(sseReply(recordedEvents(name)));
      const parts: ChatStreamPart[] = [];
      for await (const batch of chat.stream(chatRequest({ model: 'tiny-glm' }))) parts.push(...batch);
      assert.equal(parts.at(-1)?.type, 'finish', 'every recorded stream ends with a finish part');
      compareWithExpectation(`${name}.parts.json`, parts);
    });
  }

  it('llama-server-sync: the whole answer', async () => {
    engine.enqueue(jsonReply(JSON.parse(readFileSync(new URL('llama-server-sync.json', fixtures), 'utf8'))));
    const result = await chat.generate(chatRequest({ model: 'tiny-glm' }));
    compareWithExpectation('llama-server-sync.result.json', result);
  });
});
