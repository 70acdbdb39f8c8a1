// The "direct" side of bench:local: the same GGUF and the same Whisper file run by node-llama-cpp
// and whisper.cpp's binding in the benchmark's own process, doing what the platform's engines do
// for one call and nothing else, so that the difference is the platform's own cost.
import { getLlama, LlamaLogLevel, resolveChatWrapper, type Token } from 'node-llama-cpp';
import { initWhisper } from '../../src/backends/whisper-cpp/whisper-binding.ts';

export interface DirectChat {
  /** Tokens of the rendered prompt, to check that the platform rendered the same. */
  readonly promptTokens: number;
  /** One greedy answer of `maxTokens` tokens: how many it generated, in how many seconds. */
  answer(): Promise<{ units: number; seconds: number }>;
  close(): Promise<void>;
}

/**
 * node-llama-cpp's own building blocks, as the platform's llama-cpp engine uses them: the chat
 * wrapper it resolves from the GGUF's template renders the user's message, one context sequence
 * evaluates greedily, the answer's tokens are detokenized. Like the platform (and node-llama-cpp's
 * LlamaChat), a repeated prompt's start stays in the sequence and only its last token is evaluated again.
 */
export async function openDirectChat(options: {
  modelPath: string;
  contextSize: number;
  threads: number;
  prompt: string;
  maxTokens: number;
}): Promise<DirectChat> {
  // The platform's defaults: the GPU node-llama-cpp finds (the CPU without one), layers that fit.
  const llama = await getLlama({ gpu: 'auto', build: 'never', logLevel: LlamaLogLevel.warn, progressLogs: false });
  const model = await llama.loadModel({ modelPath: options.modelPath });
  const context = await model.createContext({ contextSize: options.contextSize, threads: options.threads });
  const sequence = context.getSequence();
  const { contextText } = resolveChatWrapper(model).generateContextState({
    chatHistory: [
      { type: 'user', text: options.prompt },
      { type: 'model', response: [] },
    ],
  });
  const prompt = contextText.tokenize(model.tokenizer);
  return {
    promptTokens: prompt.length,
    async answer() {
      const started = performance.now();
      if (sequence.nextTokenIndex > 0) await sequence.eraseContextTokenRanges([{ start: prompt.length - 1, end: sequence.nextTokenIndex }]);
      const answer: Token[] = [];
      for await (const token of sequence.evaluate(prompt.slice(sequence.nextTokenIndex), { temperature: 0, yieldEogToken: true })) {
        if (model.isEogToken(token)) break;
        answer.push(token);
        if (answer.length >= options.maxTokens) break;
      }
      if (model.detokenize(answer) === '' && answer.length > 0) throw new Error('the direct answer decoded to nothing');
      return { units: answer.length, seconds: (performance.now() - started) / 1000 };
    },
    async close() {
      await context.dispose();
      await model.dispose();
    },
  };
}

export interface DirectTranscription {
  /** Transcribes the file once; returns the seconds it took. */
  transcribe(path: string): Promise<number>;
  release(): Promise<void>;
}

/** The binding's own call, as the platform's whisper-cpp engine makes it: a file, the CPU build, `threads` threads. */
export async function openDirectTranscription(options: { modelPath: string; threads: number }): Promise<DirectTranscription> {
  const context = await initWhisper({ filePath: options.modelPath, useGpu: false });
  return {
    async transcribe(path) {
      const started = performance.now();
      const job = context.transcribeFile(path, { maxThreads: options.threads });
      // The binding settles only on success: a failed transcription would otherwise wait forever.
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => reject(new Error('whisper.cpp did not finish within 120 s')), 120_000);
      });
      try {
        await Promise.race([job.promise, deadline]);
      } finally {
        clearTimeout(timer);
      }
      return (performance.now() - started) / 1000;
    },
    release: () => context.release(),
  };
}
