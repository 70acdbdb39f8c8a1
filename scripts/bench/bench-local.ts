// npm run bench:local — the zero-configuration chat engine (llama.cpp in process, served by
// `model-platform serve`) against the same GGUF called directly through node-llama-cpp in this
// process: tokens per second of one answer at a time, the two taking turns round by round so that
// the host's noise hits both (BENCHMARKS.md "bench:local").
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { getLlama, LlamaChatSession, LlamaLogLevel } from 'node-llama-cpp';
import { writeTinyGlmGguf } from '../../test/helpers/tiny-glm-gguf.ts';
import { freePort, start, stopAll, waitForHealth } from './bench-processes.ts';
import { median } from './load.ts';

const rounds = Number(process.env['BENCH_ROUNDS'] ?? '8');
/** Answers per target and round, one at a time. */
const answersPerRound = Number(process.env['BENCH_ANSWERS'] ?? '5');
/** Tokens of each answer: the model never ends an answer on its own, so every answer has exactly this many. */
const maxTokens = Number(process.env['BENCH_TOKENS'] ?? '128');
/** The platform's default: half the cores (one on two), for both sides. */
const threads = Math.max(1, Math.floor(availableParallelism() / 2));
const key = 'benchlocal.0123456789abcdef0123456789abcdef';
const prompt = 'Hello there, what is the weather in the city?';

async function main(): Promise<void> {
  const modelPath = writeTinyGlmGguf({ endless: true });
  const directory = mkdtempSync(join(tmpdir(), 'bench-local-'));
  const config = join(directory, 'config.yaml');
  writeFileSync(config, `models:\n  bench-chat: { backend: llama-cpp, modelPath: ${JSON.stringify(modelPath)}, threads: ${threads} }\n`);
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const server = start(
    process.execPath,
    [fileURLToPath(new URL('../../bin/model-platform.js', import.meta.url)), 'serve', '--config', config, '--port', String(port)],
    { MODEL_PLATFORM_DATA_DIR: join(directory, 'data'), MODEL_PLATFORM_BOOTSTRAP_KEY: key, MODEL_PLATFORM_PULL: 'off', LOG_LEVEL: 'warn' },
    /(listening)/,
  );
  try {
    await Promise.race([waitForHealth(origin), server.exited]);
    const llama = await getLlama({ gpu: false, build: 'never', logLevel: LlamaLogLevel.warn });
    const model = await llama.loadModel({ modelPath });
    const context = await model.createContext({ contextSize: 2048, threads });
    const direct = async (): Promise<number> => {
      const session = new LlamaChatSession({ contextSequence: context.getSequence() });
      const started = performance.now();
      let tokens = 0;
      await session.prompt(prompt, { maxTokens, temperature: 0, onToken: (chunk) => (tokens += chunk.length) });
      const seconds = (performance.now() - started) / 1000;
      session.dispose({ disposeSequence: true });
      return tokens / seconds;
    };
    const platform = async (): Promise<number> => {
      const started = performance.now();
      const response = await fetch(`${origin}/paas/v4/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'bench-chat',
          messages: [{ role: 'user', content: prompt }],
          max_tokens: maxTokens,
          temperature: 0,
          thinking: { type: 'disabled' },
        }),
      });
      const body = (await response.json()) as { usage?: { completion_tokens: number }; error?: unknown };
      if (body.usage === undefined) throw new Error(`the platform answered ${JSON.stringify(body)}`);
      return body.usage.completion_tokens / ((performance.now() - started) / 1000);
    };
    // Both load and warm up before the measured rounds.
    await direct();
    await platform();
    const perRound: { direct: number; platform: number }[] = [];
    for (let round = 0; round < rounds; round += 1) {
      const measure = async (target: () => Promise<number>) => median(await sequential(target, answersPerRound));
      // Which side goes first alternates, so neither always follows the other's warm caches.
      const first = round % 2 === 0 ? await measure(direct) : await measure(platform);
      const second = round % 2 === 0 ? await measure(platform) : await measure(direct);
      perRound.push(round % 2 === 0 ? { direct: first, platform: second } : { direct: second, platform: first });
      console.log(`round ${round + 1}: direct ${perRound.at(-1)?.direct.toFixed(1)} tok/s, platform ${perRound.at(-1)?.platform.toFixed(1)} tok/s`);
    }
    const directMedian = median(perRound.map((entry) => entry.direct));
    const platformMedian = median(perRound.map((entry) => entry.platform));
    console.log(
      `\nchat, ${maxTokens}-token answers, ${threads} thread(s), ${rounds} rounds x ${answersPerRound} answers (load ${loadavg()[0]?.toFixed(2)}):\n` +
        `  node-llama-cpp direct  ${directMedian.toFixed(1)} tok/s\n` +
        `  platform (HTTP, sync)  ${platformMedian.toFixed(1)} tok/s\n` +
        `  ratio                  ${(platformMedian / directMedian).toFixed(3)}x (median of the rounds' ratios ${median(perRound.map((entry) => entry.platform / entry.direct)).toFixed(3)}x)`,
    );
    await context.dispose();
    await model.dispose();
  } finally {
    stopAll();
    rmSync(directory, { recursive: true, force: true });
  }
}

async function sequential(target: () => Promise<number>, count: number): Promise<number[]> {
  const results: number[] = [];
  for (let index = 0; index < count; index += 1) results.push(await target());
  return results;
}

await main();
