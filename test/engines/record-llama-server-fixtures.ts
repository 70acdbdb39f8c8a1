/**
 * Records real llama-server answers as fixtures for fake-engine tests (test/engines/fixtures):
 * `*.chunks.txt` holds a stream's `data:` payloads, one JSON chunk a line, without `[DONE]` (the
 * form vercel/ai keeps its provider fixtures in); `*.json` a non-streamed answer. Run with
 * `LLAMA_SERVER_BIN=<path> node --import tsx test/engines/record-llama-server-fixtures.ts`.
 * The ids and timestamps differ from run to run; the rest comes from the seeded tiny model.
 */
import { writeFileSync } from 'node:fs';
import { findLlamaServer, startLlamaServer } from '../helpers/llama-server.ts';
import { writeTinyGlmGguf } from '../helpers/tiny-glm-gguf.ts';
import { tinyGlmAlias, weatherMessages, weatherTool } from './weather-conversation.ts';

const binary = findLlamaServer();
if (binary === undefined) throw new Error('Set LLAMA_SERVER_BIN to the llama-server binary (scripts/test/build-llama-server.sh builds it).');

const alias = tinyGlmAlias;
const messages = weatherMessages;
const fixtures = new URL('./fixtures/', import.meta.url);

const engine = await startLlamaServer({ binary, modelPath: writeTinyGlmGguf(), alias, extraArgs: ['--no-cache-prompt'] });
try {
  const call = async (body: Record<string, unknown>): Promise<string> => {
    const response = await fetch(`${engine.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: alias, ...body }),
      signal: AbortSignal.timeout(60_000),
    });
    const text = await response.text();
    if (response.status !== 200) throw new Error(`llama-server answered ${response.status}: ${text}`);
    return text;
  };
  const record = async (name: string, body: Record<string, unknown>): Promise<void> => {
    const text = await call({ ...body, stream: true, stream_options: { include_usage: true } });
    const events = text.split('\n\n').filter((event) => event !== '');
    const payloads = events.map((event) => {
      if (!event.startsWith('data: ')) throw new Error(`not a data event: ${JSON.stringify(event)}`);
      return event.slice('data: '.length);
    });
    if (payloads.pop() !== '[DONE]') throw new Error(`${name}: the stream does not end with [DONE]`);
    writeFileSync(new URL(`${name}.chunks.txt`, fixtures), `${payloads.join('\n')}\n`);
  };

  const greedy = { messages, temperature: 0, max_tokens: 24 };
  writeFileSync(
    new URL('llama-server-sync.json', fixtures),
    `${JSON.stringify(JSON.parse(await call({ ...greedy, chat_template_kwargs: { enable_thinking: true } })), null, 2)}\n`,
  );
  // The first seed whose sampled answer reasons, then answers.
  for (let seed = 1; seed <= 40; seed += 1) {
    const body = { messages, seed, temperature: 1, top_p: 0.95, max_tokens: 48, chat_template_kwargs: { enable_thinking: true } };
    const answer = JSON.parse(await call(body)) as { choices: { message: { content?: string; reasoning_content?: string } }[] };
    const message = answer.choices[0]?.message;
    if (!message?.reasoning_content || !message.content) continue;
    await record('llama-server-reasoning', body);
    break;
  }
  await record('llama-server-text', { ...greedy, chat_template_kwargs: { enable_thinking: false } });
  // The first seed whose sampled answer calls the tool.
  for (let seed = 1; seed <= 40; seed += 1) {
    const body = {
      messages,
      tools: [weatherTool],
      tool_choice: 'auto',
      seed,
      temperature: 1,
      top_p: 0.95,
      max_tokens: 96,
      chat_template_kwargs: { enable_thinking: false },
    };
    const answer = JSON.parse(await call(body)) as { choices: { finish_reason: string }[] };
    if (answer.choices[0]?.finish_reason !== 'tool_calls') continue;
    await record('llama-server-tool-call', body);
    break;
  }
} finally {
  await engine.stop();
}
