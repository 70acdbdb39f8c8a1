// npm run bench:local — the zero-configuration engines in process, served by `model-platform serve`,
// against the same files called directly in this process (scripts/bench/local-direct.ts): chat's
// tokens per second (llama.cpp through node-llama-cpp) and transcription's real-time factor
// (whisper.cpp through its binding). Rounds interleave the four, and which side goes first
// alternates, so that the host's noise hits both sides (BENCHMARKS.md "bench:local").
// BENCH_MODEL / BENCH_WHISPER_MODEL name real files; the tiny random-weight test models otherwise.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeAudioSamples } from '../../test/helpers/audio-samples.ts';
import { writeTinyGlmGguf } from '../../test/helpers/tiny-glm-gguf.ts';
import { writeTinyWhisperModel } from '../../test/helpers/tiny-whisper-ggml.ts';
import { cpuTimes, freePort, start, stopAll, waitForHealth } from './bench-processes.ts';
import { median } from './load.ts';
import { openDirectChat, openDirectTranscription } from './local-direct.ts';

const rounds = Number(process.env['BENCH_ROUNDS'] ?? '8');
/** Calls per side, target and round, one at a time. */
const callsPerRound = Number(process.env['BENCH_ANSWERS'] ?? '4');
/** Tokens of each answer: the tiny model never ends an answer on its own, so every answer has exactly this many. */
const maxTokens = Number(process.env['BENCH_TOKENS'] ?? '128');
/** The platform's default: half the cores (one on two), for both sides. */
const threads = Math.max(1, Math.floor(availableParallelism() / 2));
const contextSize = 2048;
const key = 'benchlocal.0123456789abcdef0123456789abcdef';
const prompt = 'Hello there, what is the weather in the city?';
const speech = 'Hello there. The weather in the city is fine today, with a light wind from the west and some sun in the afternoon.';

async function main(): Promise<void> {
  const modelPath = process.env['BENCH_MODEL'] ?? writeTinyGlmGguf({ endless: true });
  const whisperPath = process.env['BENCH_WHISPER_MODEL'] ?? writeTinyWhisperModel();
  const directory = mkdtempSync(join(tmpdir(), 'bench-local-'));
  const audioPath = join(directory, 'speech.wav');
  const audio = (await makeAudioSamples(speech)).wav;
  writeFileSync(audioPath, audio);
  const audioSeconds = wavSeconds(audio);
  const config = join(directory, 'config.yaml');
  writeFileSync(
    config,
    'models:\n' +
      `  bench-chat: { backend: llama-cpp, modelPath: ${JSON.stringify(modelPath)}, threads: ${threads}, contextSize: ${contextSize} }\n` +
      `  bench-asr: { backend: whisper-cpp, modelPath: ${JSON.stringify(whisperPath)}, threads: ${threads} }\n`,
  );
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const server = start(
    process.execPath,
    [fileURLToPath(new URL('../../bin/model-platform.js', import.meta.url)), 'serve', '--config', config, '--port', String(port)],
    { MODEL_PLATFORM_DATA_DIR: join(directory, 'data'), MODEL_PLATFORM_BOOTSTRAP_KEY: key, MODEL_PLATFORM_PULL: 'off', LOG_LEVEL: 'warn' },
    /(listening)/,
  );
  try {
    // A loaded host may take a while to start it.
    await Promise.race([waitForHealth(origin, 120_000), server.exited]);
    const directChat = await openDirectChat({ modelPath, contextSize, threads, prompt, maxTokens });
    const directAsr = await openDirectTranscription({ modelPath: whisperPath, threads });
    const platformChat = async (): Promise<Produced & { promptTokens: number }> => {
      const started = performance.now();
      const body = await call(`${origin}/paas/v4/chat/completions`, {
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'bench-chat', messages: [{ role: 'user', content: prompt }], max_tokens: maxTokens, temperature: 0 }),
      });
      const usage = body['usage'] as { completion_tokens: number; prompt_tokens: number } | undefined;
      if (usage === undefined) throw new Error(`the platform answered ${JSON.stringify(body)}`);
      return { units: usage.completion_tokens, seconds: (performance.now() - started) / 1000, promptTokens: usage.prompt_tokens };
    };
    const platformAsr = async (): Promise<number> => {
      const form = new FormData();
      form.set('model', 'bench-asr');
      form.set('file', new Blob([audio], { type: 'audio/wav' }), 'speech.wav');
      const started = performance.now();
      const body = await call(`${origin}/paas/v4/audio/transcriptions`, { body: form });
      if (typeof body['text'] !== 'string') throw new Error(`the platform answered ${JSON.stringify(body)}`);
      return (performance.now() - started) / 1000;
    };
    // Both sides load and warm up before the measured rounds; the prompts must be the same tokens.
    const { promptTokens } = await platformChat();
    if (promptTokens !== directChat.promptTokens) throw new Error(`prompts differ: platform ${promptTokens} tokens, direct ${directChat.promptTokens}`);
    await directChat.answer();
    await platformAsr();
    await directAsr.transcribe(audioPath);
    // Each call returns the units it produced (tokens, seconds of audio) and its wall seconds; the
    // CPU time of the process that did the work (this one for direct calls, the server for the
    // platform's) is read around each batch: on a loaded host wall time swings with the neighbours,
    // while CPU time per unit shows what each side itself spends.
    const serverCpuMs = (): number => cpuTimes([server.pid]).get(server.pid) ?? Number.NaN;
    const ownCpuMs = (): number => {
      const { user, system } = process.cpuUsage();
      return (user + system) / 1000;
    };
    const targets = {
      chatDirect: { call: () => directChat.answer(), cpuMs: ownCpuMs },
      chatPlatform: { call: platformChat, cpuMs: serverCpuMs },
      asrDirect: { call: async () => ({ units: audioSeconds, seconds: await directAsr.transcribe(audioPath) }), cpuMs: ownCpuMs },
      asrPlatform: { call: async () => ({ units: audioSeconds, seconds: await platformAsr() }), cpuMs: serverCpuMs },
    };
    type Target = keyof typeof targets;
    const perRound: Record<Target, Rates>[] = [];
    for (let round = 0; round < rounds; round += 1) {
      const order: Target[] =
        round % 2 === 0 ? ['chatDirect', 'chatPlatform', 'asrDirect', 'asrPlatform'] : ['asrPlatform', 'asrDirect', 'chatPlatform', 'chatDirect'];
      const results = new Map<Target, Rates>();
      for (const target of order) results.set(target, await batch(targets[target].call, targets[target].cpuMs, callsPerRound));
      const entry = Object.fromEntries(results) as Record<Target, Rates>;
      perRound.push(entry);
      console.log(
        `round ${round + 1}: chat direct ${entry.chatDirect.wall.toFixed(1)} / platform ${entry.chatPlatform.wall.toFixed(1)} tok/s; ` +
          `transcription direct ${entry.asrDirect.wall.toFixed(2)} / platform ${entry.asrPlatform.wall.toFixed(2)} x real time`,
      );
    }
    const of = (target: Target, rate: keyof Rates): string => median(perRound.map((entry) => entry[target][rate])).toFixed(target.startsWith('chat') ? 1 : 2);
    const ratio = (platform: Target, direct: Target, rate: keyof Rates): string =>
      median(perRound.map((entry) => entry[platform][rate] / entry[direct][rate])).toFixed(3);
    const row = (label: string, platform: Target, direct: Target): string =>
      `    ${label.padEnd(22)} ${of(direct, 'wall').padStart(8)} ${of(platform, 'wall').padStart(9)} ${ratio(platform, direct, 'wall').padStart(7)}x` +
      ` ${of(direct, 'cpu').padStart(10)} ${of(platform, 'cpu').padStart(9)} ${ratio(platform, direct, 'cpu').padStart(7)}x`;
    console.log(
      `\n${threads} thread(s), ${rounds} rounds x ${callsPerRound} calls per side, load ${loadavg()[0]?.toFixed(2)}; medians of the rounds ` +
        `(per wall second, and per CPU second of the process doing the work):\n` +
        `    ${''.padEnd(22)} ${'direct'.padStart(8)} ${'platform'.padStart(9)} ${'ratio'.padStart(8)} ${'cpu direct'.padStart(10)} ${'platform'.padStart(9)} ${'ratio'.padStart(8)}\n` +
        `${row(`chat tok/s (${maxTokens} tokens)`, 'chatPlatform', 'chatDirect')}\n` +
        `${row(`speech s/s (${audioSeconds.toFixed(1)} s)`, 'asrPlatform', 'asrDirect')}\n` +
        `  prompt ${promptTokens} tokens on both sides; real-time factor = 1 / speech s/s`,
    );
    await directChat.close();
    await directAsr.release();
  } finally {
    stopAll();
    rmSync(directory, { recursive: true, force: true });
  }
}

async function call(url: string, init: { headers?: Record<string, string>; body: string | FormData }): Promise<Record<string, unknown>> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, ...init.headers },
    body: init.body,
    signal: AbortSignal.timeout(300_000),
  });
  return (await response.json()) as Record<string, unknown>;
}

/** The length of a PCM WAV file: its data chunk over its byte rate. */
function wavSeconds(wav: Buffer): number {
  const byteRate = wav.readUInt32LE(28);
  const data = wav.indexOf('data', 12, 'latin1');
  if (data < 0 || byteRate === 0) throw new Error('espeak-ng wrote no PCM WAV');
  return (wav.length - data - 8) / byteRate;
}

interface Produced {
  readonly units: number;
  readonly seconds: number;
}

/** Units per wall second (median of the calls) and per CPU second (the batch's units over its CPU time). */
interface Rates {
  readonly wall: number;
  readonly cpu: number;
}

async function batch(call: () => Promise<Produced>, cpuMs: () => number, count: number): Promise<Rates> {
  const rates: number[] = [];
  let units = 0;
  const cpuBefore = cpuMs();
  for (let index = 0; index < count; index += 1) {
    const produced = await call();
    rates.push(produced.units / produced.seconds);
    units += produced.units;
  }
  return { wall: median(rates), cpu: units / ((cpuMs() - cpuBefore) / 1000) };
}

await main();
