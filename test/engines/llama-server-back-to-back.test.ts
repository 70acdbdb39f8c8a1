import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, it } from 'node:test';
import { startLlamaServer, type LlamaServer } from '../helpers/llama-server.ts';
import { describeWithLlamaServer } from '../helpers/real-engine-suite.ts';
import { parseSseBody } from '../helpers/sse-events.ts';
import { startTestPlatform, type TestPlatform } from '../helpers/test-platform.ts';
import { writeTinyGlmGguf } from '../helpers/tiny-glm-gguf.ts';

const url = '/paas/v4/chat/completions';
const alias = 'tiny-glm';
const maxTokens = 8;
const concurrencies = [1, 8, 16] as const;

/**
 * Requests per mode (streamed, sync) and concurrency. The default keeps the file near a minute on a
 * loaded 2-core machine, where llama-server itself takes 25–50 ms per call; set
 * BACK_TO_BACK_REQUESTS=1000 for the full run (6,000 calls, a few minutes there).
 */
const requestsPerRun = positiveInteger(process.env['BACK_TO_BACK_REQUESTS']) ?? 150;
/** Six runs of requestsPerRun calls; a call takes 10-80 ms here, so 150 ms each leaves room on a loaded machine. */
const suiteTimeoutMs = Math.max(120_000, requestsPerRun * 6 * 150);

function positiveInteger(text: string | undefined): number | undefined {
  const value = Number(text);
  return Number.isInteger(value) && value > 0 ? value : undefined;
}

interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

interface Choice {
  index: number;
  message?: { role: string; content: string | null };
  delta?: { role?: string; content?: string; reasoning_content?: string };
  finish_reason: string | null;
}

const endings = ['stop', 'length'];

/** A well-formed usage of one answer: a prompt, 1..max_tokens completion tokens, the total their sum. */
function checkUsage(usage: Usage | undefined, where: string): void {
  assert.ok(usage !== undefined, `${where}: usage`);
  assert.ok(usage.prompt_tokens > 0, `${where}: prompt_tokens ${usage.prompt_tokens}`);
  assert.ok(usage.completion_tokens > 0 && usage.completion_tokens <= maxTokens, `${where}: completion_tokens ${usage.completion_tokens}`);
  assert.equal(usage.total_tokens, usage.prompt_tokens + usage.completion_tokens, `${where}: total_tokens`);
}

function checkSync(status: number, text: string, where: string): void {
  assert.equal(status, 200, `${where}: ${text}`);
  const body = JSON.parse(text) as { choices: Choice[]; usage: Usage; model: string };
  assert.equal(body.model, 'glm-4.6', where);
  assert.equal(body.choices.length, 1, where);
  const choice = body.choices[0];
  assert.equal(choice?.message?.role, 'assistant', where);
  assert.equal(typeof choice.message.content, 'string', `${where}: ${text}`);
  assert.ok(endings.includes(String(choice.finish_reason)), `${where}: finish_reason ${choice.finish_reason}`);
  checkUsage(body.usage, where);
}

function checkStreamed(status: number, contentType: string | null, text: string, where: string): void {
  assert.equal(status, 200, `${where}: ${text}`);
  assert.match(String(contentType), /^text\/event-stream/, where);
  // parseSseBody asserts the framing: one data line per event, [DONE] last.
  const events = parseSseBody(text);
  // An answer of spaces only (one in a few thousand from the random weights) streams no text:
  // llama-server holds whitespace back in a stream and drops it at the end (its whole answer keeps
  // it), so the platform's stream is its last chunk alone, an empty delta with finish and usage.
  assert.ok(events.length >= 1, `${where}: ${text}`);
  assert.equal(new Set(events.map((event) => event['id'])).size, 1, `${where}: one id`);
  for (const event of events.slice(0, -1)) {
    const choice = (event['choices'] as Choice[])[0];
    assert.equal(choice?.finish_reason, null, `${where}: ${JSON.stringify(event)}`);
    assert.equal(choice.delta?.role, 'assistant', where);
    assert.equal(event['usage'], undefined, `${where}: usage only on the last chunk`);
  }
  const last = events.at(-1) ?? {};
  const choice = (last['choices'] as Choice[])[0];
  assert.ok(endings.includes(String(choice?.finish_reason)), `${where}: finish_reason ${choice?.finish_reason}`);
  checkUsage(last['usage'] as Usage, where);
}

/**
 * The platform in front of a real llama-server, called back to back: every streamed and every
 * sync answer is a well-formed 200 at concurrency 1, 8 and 16. llama-server closes the connection
 * after every streamed answer although it says keep-alive, so a pooled connection is often dead
 * when the next call takes it: the platform must send such a call again on a new connection.
 */
describeWithLlamaServer(
  'back-to-back calls to a real llama-server through the platform',
  (binary) => {
    let engine: LlamaServer;
    let test: TestPlatform;
    let platformOrigin: string;

    before(async () => {
      // As many slots as the highest concurrency: the engine batches them instead of queueing.
      engine = await startLlamaServer({ binary, modelPath: writeTinyGlmGguf(), alias, parallel: 16 });
      const entry = { backend: 'openai-compatible' as const, baseUrl: engine.baseUrl, upstreamModel: alias };
      test = await startTestPlatform({ config: { models: { 'glm-4.6': entry } } });
      await test.app.listen({ port: 0, host: '127.0.0.1' });
      platformOrigin = `http://127.0.0.1:${(test.app.server.address() as AddressInfo).port}`;
    });
    after(async () => {
      await test?.close();
      await engine?.stop();
    });

    /** One call over real HTTP; throws with the call's number and what came back when it is not well-formed. */
    async function call(stream: boolean, number: number): Promise<void> {
      const where = `${stream ? 'streamed' : 'sync'} call ${number}`;
      const response = await fetch(`${platformOrigin}${url}`, {
        method: 'POST',
        headers: { authorization: test.authorization, 'content-type': 'application/json' },
        // A different prompt each call: no two answers come from the same cached prompt.
        body: JSON.stringify({
          model: 'glm-4.6',
          messages: [{ role: 'user', content: `Question ${number}: what next?` }],
          max_tokens: maxTokens,
          stream,
          thinking: { type: 'disabled' },
        }),
        signal: AbortSignal.timeout(30_000),
      });
      const text = await response.text();
      if (stream) checkStreamed(response.status, response.headers.get('content-type'), text, where);
      else checkSync(response.status, text, where);
    }

    /** `count` calls by `concurrency` workers, each starting its next call as soon as its last one ended. */
    async function backToBack(stream: boolean, concurrency: number, count: number): Promise<string[]> {
      let next = 0;
      const failures: string[] = [];
      const worker = async () => {
        while (next < count) {
          const number = next;
          next += 1;
          try {
            await call(stream, number);
          } catch (error) {
            failures.push((error as Error).message.slice(0, 500));
          }
        }
      };
      await Promise.all(Array.from({ length: concurrency }, worker));
      return failures;
    }

    for (const concurrency of concurrencies) {
      for (const stream of [true, false]) {
        it(`${requestsPerRun} ${stream ? 'streamed' : 'sync'} calls at concurrency ${concurrency}: every answer a well-formed 200`, async (t) => {
          const started = Date.now();
          const failures = await backToBack(stream, concurrency, requestsPerRun);
          t.diagnostic(`${requestsPerRun} calls in ${Date.now() - started} ms, ${failures.length} failed`);
          assert.deepEqual(failures.slice(0, 5), [], `${failures.length} of ${requestsPerRun} calls failed`);
        });
      }
    }
  },
  { timeoutMs: suiteTimeoutMs },
);
