import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { deploymentHeader } from '../../src/http/served-by-headers.ts';
import { makeAudioSamples, type AudioSamples } from '../helpers/audio-samples.ts';
import { sseReply, startFakeOpenAiServer, type FakeOpenAiServer } from '../helpers/fake-openai-server.ts';
import { postForm } from '../helpers/multipart-form.ts';
import { parseSseBody } from '../helpers/sse-events.ts';
import { startTestPlatform, type TestPlatform } from '../helpers/test-platform.ts';

const url = '/paas/v4/audio/transcriptions';
const deltas = (...texts: string[]) => texts.map((delta) => ({ type: 'transcript.text.delta', delta }));

/**
 * A streamed transcription is committed to its deployment once its first delta is passed on: an
 * engine that dies after it ends the stream with an error and no second engine is asked (no second
 * transcript); one that fails before it is replaced by the next deployment. Both on the upstream
 * platform's streamed /audio/transcriptions, the first deployment by priority cut, the second whole.
 */
describe('a streamed transcription on a model with two deployments', () => {
  let first: FakeOpenAiServer;
  let second: FakeOpenAiServer;
  let samples: AudioSamples;
  let test: TestPlatform;

  before(async () => {
    [first, second, samples] = await Promise.all([startFakeOpenAiServer(), startFakeOpenAiServer(), makeAudioSamples('hello there')]);
    second.setDefault(sseReply(deltas('hello', ' there')));
    const deployments = [first, second].map((engine, priority) => ({
      name: priority === 0 ? 'first' : 'second',
      backend: 'zai' as const,
      baseUrl: `${engine.origin}/api/paas/v4`,
      apiKey: 'upstream-id.upstream-secret',
      upstreamModel: 'glm-asr',
      priority,
    }));
    // One model per case: each has its own deployments' health.
    test = await startTestPlatform({
      config: { models: { 'asr-cut': { routing: 'priority', deployments }, 'asr-refused': { routing: 'priority', deployments } } },
    });
  });
  after(async () => {
    await test.close();
    await Promise.all([first.close(), second.close()]);
  });

  const transcriptions = (engine: FakeOpenAiServer) => engine.requests.filter((request) => request.path.endsWith('/audio/transcriptions')).length;
  const stream = (model: string) =>
    postForm(test, url, [
      ['model', model],
      ['stream', 'true'],
      ['file', samples.wav, 'speech.wav'],
    ]);

  it('an engine that dies after the first delta ends the stream with an error; the other deployment is not asked', async () => {
    first.enqueue(sseReply(deltas('hel', 'lo'), { cutAfter: 1 }));
    const asked = transcriptions(second);
    const answer = await stream('asr-cut');
    assert.equal(answer.statusCode, 200, answer.body);
    assert.equal(answer.headers[deploymentHeader], 'first');
    const events = parseSseBody(answer.body);
    assert.deepEqual(
      events.slice(0, 1).map((event) => [event['type'], event['delta']]),
      [['transcript.text.delta', 'hel']],
    );
    assert.ok(events.at(-1)?.['error'] !== undefined, `the stream ends with an error: ${answer.body}`);
    assert.ok(!events.some((event) => event['type'] === 'transcript.text.done'), answer.body);
    assert.equal(transcriptions(second), asked, 'no second transcription');
  });

  it('an engine that fails before its first delta is replaced by the next deployment', async () => {
    first.enqueue({ kind: 'reset' });
    const asked = transcriptions(first);
    const answer = await stream('asr-refused');
    assert.equal(answer.statusCode, 200, answer.body);
    assert.equal(transcriptions(first), asked + 1, 'the first deployment was tried');
    assert.equal(answer.headers[deploymentHeader], 'second');
    assert.equal(parseSseBody(answer.body).at(-1)?.['text'], 'hello there');
  });
});
