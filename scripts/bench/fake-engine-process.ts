// A fake OpenAI-compatible engine in its own process for the chat benchmark: a fixed JSON answer,
// or a stream of CHUNKS content deltas. Prints its base URL on stdout.
import { sseReply, startFakeOpenAiServer, vllmCompletion, vllmReasoningStream } from '../../test/helpers/fake-openai-server.ts';

const chunks = Number(process.env['CHUNKS'] ?? '100');
// The benchmark's clients keep their connections between rounds while the other targets run: an
// engine closing them after Node's default 5 s idle meets a request written at that moment, a
// "socket hang up" for the direct target and for the pass-through proxy (the platform retries it).
const engine = await startFakeOpenAiServer({ keepAliveTimeoutMs: 120_000 });
const answer = { kind: 'json' as const, body: vllmCompletion({ content: 'Hello from the fake engine.', usage: { promptTokens: 12, completionTokens: 7 } }) };
const stream = sseReply(
  vllmReasoningStream({ content: Array.from({ length: chunks }, (_, index) => `t${index} `), usage: { promptTokens: 12, completionTokens: chunks } }),
);
const route = (request: { body: Record<string, unknown> }) => (request.body['stream'] === true ? stream : answer);
engine.setDefault(route);
// The benchmark sends tens of thousands of requests: forget the recorded ones as it goes.
setInterval(() => {
  if (engine.requests.length < 1000) return;
  engine.reset();
  engine.setDefault(route);
}, 200);
console.log(engine.baseUrl);
