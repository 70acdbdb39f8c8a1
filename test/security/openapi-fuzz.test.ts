import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { errorCatalogue } from '../../src/core/errors/error-catalogue.ts';
import { jsonReply, sseReply, startFakeOpenAiServer, vllmCompletion, vllmReasoningStream, type FakeOpenAiServer } from '../helpers/fake-openai-server.ts';
import { startFakeOpenAiImagesServer, type FakeOpenAiImagesServer } from '../helpers/fake-openai-images-server.ts';
import { startFakeOpenAiTranscriptionServer, type FakeOpenAiTranscriptionServer } from '../helpers/fake-openai-transcription-server.ts';
import { dotDataUrl } from '../helpers/fake-web.ts';
import { startTestPlatform, type TestPlatform } from '../helpers/test-platform.ts';
import { answerProblem, type FuzzAnswer } from './fuzz-oracle.ts';
import { malformedInline, startMalformedWeb, type MalformedWeb } from './malformed-web.ts';
import { readOperations, type FuzzOperation } from './openapi-operations.ts';
import { operationCase, type FuzzRequest, type OperationContext } from './operation-cases.ts';
import { rawHttpCases, sendRaw } from './raw-http-cases.ts';
import { fuzzSeed, SeededRandom } from './seeded-random.ts';

/**
 * Fuzzes every operation of /openapi.json with seeded, bounded cases (see docs/security.md):
 * FUZZ_SEED=<n> reruns a seed, FUZZ_CASES=<n> sets the cases per operation, FUZZ_CASE=<index>
 * sends only that case.
 */
const seed = fuzzSeed(process.env, 20_261_126);
const casesPerOperation = Number(process.env['FUZZ_CASES'] ?? 110);
const onlyCase = process.env['FUZZ_CASE'] === undefined ? undefined : Number(process.env['FUZZ_CASE']);
const caseTimeoutMs = 10_000;
const dotPng = Buffer.from(dotDataUrl.slice(dotDataUrl.indexOf(',') + 1), 'base64');

/**
 * The 5xx codes of the catalogue (500, 503, 1230, 1234) that a fuzzed request may get:
 * - 1234 (500): a URL the caller named could not be fetched (the fuzzer names 127.0.0.1:1, where
 *   nothing listens; fetch.allow lets the guard through to loopback so malformed pages are read).
 * Not allowed: 500 (an unhandled exception, or an engine fault: the fake engines here behave),
 * 503 (only while shutting down) and 1230 (a task or agent that failed; nothing here runs long).
 */
const allowedServerErrors: ReadonlySet<string> = new Set(['1234']);

/** A small silent WAV (16 kHz, 0.1 s) for the audio form. */
function silentWav(): Buffer {
  const samples = 1600;
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + samples * 2, 4);
  header.write('WAVEfmt ', 8);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(16_000, 24);
  header.writeUInt32LE(32_000, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36);
  header.writeUInt32LE(samples * 2, 40);
  return Buffer.concat([header, Buffer.alloc(samples * 2)]);
}

/** Fails with `message` unless `promise` settles within `ms`. */
async function within<Value>(promise: Promise<Value>, ms: number, message: string): Promise<Value> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The case's PRNG depends only on the seed and its index, so one case is reproduced alone. */
function caseRandom(index: number): SeededRandom {
  return new SeededRandom((Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) + Math.imul(index + 1, 0xc2b2ae35)) >>> 0);
}

/** Names on the shared prototypes: a case that adds one has polluted every object of the process. */
function prototypeNames(): string {
  return [Object.prototype, Array.prototype, Function.prototype].map((prototype) => Object.getOwnPropertyNames(prototype).sort().join(',')).join('|');
}

function describeRequest(request: FuzzRequest): string {
  const payload = request.payload === undefined ? '' : request.payload.toString().slice(0, 300);
  return `${request.method} ${request.url.slice(0, 300)} ${JSON.stringify(request.headers)} ${JSON.stringify(payload)}`;
}

describe(`OpenAPI fuzzer (FUZZ_SEED=${seed})`, () => {
  let test: TestPlatform;
  let chat: FakeOpenAiServer;
  let images: FakeOpenAiImagesServer;
  let transcription: FakeOpenAiTranscriptionServer;
  let web: MalformedWeb;
  let operations: FuzzOperation[];
  const contexts = new Map<string, OperationContext>();
  const crashes: string[] = [];
  const onCrash = (error: unknown) => crashes.push(error instanceof Error ? (error.stack ?? error.message) : String(error));

  before(async () => {
    process.on('uncaughtException', onCrash);
    process.on('unhandledRejection', onCrash);
    chat = await startFakeOpenAiServer();
    chat.setDefault((request) => {
      if (request.path.endsWith('/tokenize')) return jsonReply({ count: 7 });
      if (request.body['stream'] === true) return sseReply(vllmReasoningStream({ content: ['Hi'], usage: { promptTokens: 3, completionTokens: 1 } }));
      return jsonReply(vllmCompletion({ content: 'Hi' }));
    });
    images = await startFakeOpenAiImagesServer();
    transcription = await startFakeOpenAiTranscriptionServer('hello');
    web = await startMalformedWeb();
    const chatEngine = { backend: 'openai-compatible' as const, baseUrl: chat.baseUrl, upstreamModel: 'zai-org/GLM' };
    test = await startTestPlatform({
      config: {
        models: {
          'glm-4.7': chatEngine,
          'glm-4.6v': { ...chatEngine, vision: true },
          'my-painter': { backend: 'openai-images', baseUrl: images.baseUrl, upstreamModel: 'dall-e-3' },
          'glm-asr-2512': { backend: 'openai-transcription', baseUrl: transcription.baseUrl, upstreamModel: 'whisper-small' },
        },
        // The translation agent runs on the fake chat engine; slides (Chromium) and effect videos stay unconfigured (1221).
        agents: { general_translation: { model: 'glm-4.7' } },
        // Loopback is let through the SSRF guard so that the reader, OCR and media inliners read the malformed resources.
        fetch: { allow: ['127.0.0.1/32'] },
      },
    });
    const document = (await test.app.inject({ method: 'GET', url: '/openapi.json' })).json() as unknown;
    operations = readOperations(document);
    const admin = `Bearer ${(await test.platform.keyAdmin.create({ name: 'fuzz-admin', policy: { scope: 'admin' } })).key}`;
    // The admin operations act on a key of their own: revoking or limiting the fuzzer's key would turn every later case into a 401 or 429.
    const keyId = (await test.platform.keys.create({ name: 'fuzz-victim' })).id;
    const wav = silentWav();
    const uploaded = await test.app.inject({
      method: 'POST',
      url: '/paas/v4/files',
      headers: { authorization: test.authorization, 'content-type': 'multipart/form-data; boundary=b' },
      payload: `--b\r\nContent-Disposition: form-data; name="purpose"\r\n\r\nuser_data\r\n--b\r\nContent-Disposition: form-data; name="file"; filename="g.txt"\r\nContent-Type: text/plain\r\n\r\nterm\tTerm\r\n--b--\r\n`,
    });
    assert.equal(uploaded.statusCode, 200, uploaded.body);
    const fileId = (uploaded.json() as { id: string }).id;
    const urls = [
      ...web.urls,
      'http://127.0.0.1:1/page',
      'http://169.254.169.254/latest/meta-data/',
      'http://[::1]/',
      'file:///etc/passwd',
      'gopher://127.0.0.1/',
      dotDataUrl,
    ];
    const inline = [dotDataUrl, ...malformedInline];
    const audio = [wav, wav.subarray(0, 44), wav.subarray(0, 20), Buffer.from('ID3\u0004\u0000garbage that is not an mp3 frame')];
    const shared: [string, unknown[]][] = [
      ['url', urls],
      ['image_url', [...urls, ...inline]],
      ['file_url', urls],
      ['video_url', urls],
      ['file', [...inline, ...urls]],
      ['file_base64', audio.map((bytes) => bytes.toString('base64'))],
      [
        'messages',
        [
          [{ role: 'user', content: 'Hello' }],
          [
            { role: 'system', content: 'Be brief.' },
            { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
          ],
        ],
      ],
      ['search_engine', ['search-prime']],
      ['agent_id', ['general_translation', 'slides_glm_agent', 'vidu_template_agent']],
    ];
    // pdf.js and the OCR models load on first use (seconds on a busy machine): loaded here, so that the per-case timeout measures the request.
    for (const [url, body] of [
      ['/paas/v4/reader', { url: web.urls.find((candidate) => candidate.endsWith('.pdf')) }],
      ['/paas/v4/layout_parsing', { model: 'glm-ocr', file: dotDataUrl }],
    ] as const) {
      await test.app.inject({
        method: 'POST',
        url,
        headers: { authorization: test.authorization, 'content-type': 'application/json' },
        payload: JSON.stringify(body),
      });
    }
    for (const operation of operations) {
      const models = operation.path.includes('images')
        ? ['my-painter', 'glm-image']
        : operation.path.includes('audio')
          ? ['glm-asr-2512']
          : operation.path.includes('layout')
            ? ['glm-ocr']
            : operation.path.includes('videos')
              ? ['cogvideox-3']
              : ['glm-4.7', 'glm-4.6v'];
      const ids = operation.path.startsWith('/admin') ? [keyId] : operation.path.includes('files') ? [fileId] : ['no-such-task'];
      contexts.set(operation.operationId, {
        hints: new Map([...shared, ['model', models], ['id', ids], ['key_id', [keyId]]]),
        authorization: operation.path.startsWith('/admin') ? admin : test.authorization,
        files: operation.path.includes('audio')
          ? audio.map((bytes, index) => ({ bytes, name: `a${index}.${index === 3 ? 'mp3' : 'wav'}` }))
          : [
              { bytes: Buffer.from('term\tTerm\n'), name: 'glossary.txt' },
              { bytes: Buffer.from([0xff, 0xfe, 0, 0xd8]), name: 'binary.txt' },
            ],
      });
    }
  });

  after(async () => {
    await test.close();
    await Promise.all([chat.close(), images.close(), transcription.close(), web.close()]);
    process.off('uncaughtException', onCrash);
    process.off('unhandledRejection', onCrash);
  });

  it('answers every fuzzed request in the platform shape, with no crash, hang or undocumented 5xx', async (context) => {
    context.diagnostic(`seed ${seed}, ${casesPerOperation} cases for each of ${operations.length} operations`);
    assert.ok(operations.length >= 20, `the document lists ${operations.length} operations`);
    const failures: string[] = [];
    let cleanPrototypes = prototypeNames();
    let sent = 0;
    /** `operationId status` → count: shows how deep the cases got (2xx reached the engines). */
    const statuses = new Map<string, number>();
    for (const [operationIndex, operation] of operations.entries()) {
      const operationContext = contexts.get(operation.operationId);
      assert.ok(operationContext !== undefined);
      for (let caseIndex = 0; caseIndex < casesPerOperation; caseIndex += 1) {
        const index = operationIndex * casesPerOperation + caseIndex;
        if (onlyCase !== undefined && index !== onlyCase) continue;
        const random = caseRandom(index);
        const request = operationCase(operation, operationContext, random, random.chance(0.08));
        images.reset();
        images.reply({ kind: 'b64', images: [dotPng] }, { kind: 'b64', images: [dotPng] });
        const crashesBefore = crashes.length;
        let problem: string | undefined;
        let status = 0;
        const startedAt = Date.now();
        try {
          const response = await within(test.app.inject(request), caseTimeoutMs, `no answer within ${caseTimeoutMs} ms`);
          const answer: FuzzAnswer = { status: response.statusCode, contentType: String(response.headers['content-type'] ?? ''), body: response.rawPayload };
          problem = answerProblem(answer, allowedServerErrors);
          status = response.statusCode;
          const tally = `${operation.operationId} ${response.statusCode}`;
          statuses.set(tally, (statuses.get(tally) ?? 0) + 1);
          if (problem !== undefined) problem = `${problem} — ${response.statusCode} ${response.body.slice(0, 300)}`;
        } catch (error) {
          problem = `inject failed: ${(error as Error).message}`;
        }
        if (crashes.length > crashesBefore) problem = `${problem ?? ''} crash: ${crashes.slice(crashesBefore).join(' | ').slice(0, 500)}`;
        if (prototypeNames() !== cleanPrototypes) {
          problem = `${problem ?? ''} the request added a property to a shared prototype`;
          cleanPrototypes = prototypeNames();
        }
        sent += 1;
        if (process.env['FUZZ_TRACE'] !== undefined)
          context.diagnostic(
            `${index} ${operation.operationId} ${status} ${Date.now() - startedAt} ms [${request.label.slice(0, 80)}] ${request.url.slice(0, 100)} ${String(request.payload ?? '').slice(0, 200)}`,
          );
        if (problem !== undefined)
          failures.push(
            `case ${index} (FUZZ_SEED=${seed} FUZZ_CASE=${index}) ${operation.operationId} [${request.label}]: ${problem}\n    request: ${describeRequest(request)}`,
          );
      }
    }
    context.diagnostic(
      `${sent} cases sent, ${failures.length} failed; answers by operation and status: ${[...statuses].map(([tally, count]) => `${tally}×${count}`).join(', ')}`,
    );
    assert.deepEqual(crashes, [], 'uncaught exceptions or unhandled rejections');
    assert.equal(failures.length, 0, `${failures.length} failing cases (seed ${seed}):\n${failures.slice(0, 40).join('\n')}`);
  });

  it('answers byte-level requests over a real socket in the platform shape and keeps serving', async (context) => {
    if (onlyCase !== undefined) return;
    const address = await test.app.listen({ host: '127.0.0.1', port: 0 });
    const port = Number(new URL(address).port);
    const failures: string[] = [];
    for (const rawCase of rawHttpCases(test.authorization)) {
      const crashesBefore = crashes.length;
      const answer = await sendRaw(port, rawCase.bytes, { endAfterWrite: rawCase.halfClose === true, timeoutMs: caseTimeoutMs });
      let problem: string | undefined;
      if (answer === 'timeout') problem = `no answer within ${caseTimeoutMs} ms`;
      else if (answer === 'closed') problem = rawCase.mayClose === true ? undefined : 'the connection closed without an answer';
      else problem = answerProblem(answer, allowedServerErrors);
      if (problem !== undefined && answer !== 'timeout' && answer !== 'closed')
        problem = `${problem} — ${answer.status} ${answer.body.toString().slice(0, 300)}`;
      if (crashes.length > crashesBefore) problem = `${problem ?? ''} crash: ${crashes.slice(crashesBefore).join(' | ').slice(0, 500)}`;
      if (process.env['FUZZ_TRACE'] !== undefined)
        context.diagnostic(`${rawCase.label}: ${typeof answer === 'string' ? answer : `${answer.status} ${answer.body.toString().slice(0, 120)}`}`);
      const health = await sendRaw(port, Buffer.from('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n'), { timeoutMs: caseTimeoutMs });
      if (health === 'timeout' || health === 'closed' || health.status !== 200) problem = `${problem ?? ''} and the server stopped answering /healthz`;
      if (problem !== undefined) failures.push(`raw case '${rawCase.label}': ${problem}`);
    }
    context.diagnostic(`${rawHttpCases(test.authorization).length} byte-level cases`);
    assert.deepEqual(crashes, [], 'uncaught exceptions or unhandled rejections');
    assert.equal(failures.length, 0, `${failures.length} failing byte-level cases:\n${failures.join('\n')}`);
  });

  it('allows only 5xx codes that the catalogue documents', () => {
    for (const code of allowedServerErrors) assert.ok(errorCatalogue[code as keyof typeof errorCatalogue].status >= 500, code);
  });
});
