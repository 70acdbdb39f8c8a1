import { initWhisper, type WhisperContext, type WhisperJob } from './whisper-binding.ts';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Announcer } from '../../core/backends/announcer.ts';
import { EngineFailure } from '../../core/errors/engine-failure.ts';
import type { Transcriber, Transcription, TranscriptionRequest } from '../../core/media/transcriber.ts';
import { promptWithHotwords } from '../../core/media/whisper-prompt.ts';

export interface WhisperEngineSettings {
  readonly modelName: string;
  readonly modelPath: string;
  /** Why the model file cannot be used yet (an hf:// file still downloading), or undefined. */
  readonly notReadyReason: () => string | undefined;
  readonly language: string | undefined;
  readonly threads: number;
  readonly timeoutMs: number;
  /** Says, once per load, which device runs the model. */
  readonly announce: Announcer;
}

/**
 * Whisper through whisper.cpp in this process. The audio (WAV or MP3, at most 30 seconds, already
 * checked by the route) goes through a temporary file: whisper.cpp's own reader (miniaudio)
 * decodes both formats and resamples to the 16 kHz mono it needs, so no decoder runs here.
 *
 * The binding settles a transcription's promise only on success: when whisper.cpp fails or is
 * stopped, its worker calls back without a result and the promise stays pending. So every call
 * races a deadline and the caller's signal, stopping the native job on either.
 */
export class WhisperTranscriber implements Transcriber {
  readonly #settings: WhisperEngineSettings;
  #context: Promise<WhisperContext> | undefined;

  constructor(settings: WhisperEngineSettings) {
    this.#settings = settings;
  }

  async transcribe(request: TranscriptionRequest): Promise<Transcription> {
    const context = await this.#loaded();
    const directory = await mkdtemp(join(tmpdir(), 'model-platform-audio-'));
    try {
      const path = join(directory, `audio.${request.audio.format}`);
      await writeFile(path, request.audio.bytes);
      const prompt = promptWithHotwords(request.prompt, request.hotwords);
      const job = context.transcribeFile(path, {
        maxThreads: this.#settings.threads,
        ...(this.#settings.language === undefined ? {} : { language: this.#settings.language }),
        ...(prompt === undefined ? {} : { prompt }),
      });
      const result = await this.#settled(job, request.signal);
      return { text: result.result.trim() };
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  }

  async close(): Promise<void> {
    const context = this.#context;
    this.#context = undefined;
    if (context !== undefined) await (await context.catch(() => undefined))?.release();
  }

  #loaded(): Promise<WhisperContext> {
    const { modelName, modelPath } = this.#settings;
    const notReady = this.#settings.notReadyReason();
    if (notReady !== undefined) throw new EngineFailure('misconfigured', modelName, `Model '${modelName}' is not ready: the platform ${notReady}.`);
    if (!existsSync(modelPath)) {
      throw new EngineFailure('misconfigured', modelName, `Model '${modelName}' is offline: its Whisper file '${modelPath}' does not exist.`);
    }
    this.#context ??= initWhisper({ filePath: modelPath, useGpu: false }).then(
      (context) => {
        // The binding's CPU build: its CUDA and Vulkan builds are left out at install (package.json's overrides).
        this.#settings.announce({ model: modelName, device: 'cpu' }, `model ${modelName} loaded on the CPU (${this.#settings.threads} threads)`);
        return context;
      },
      (error: unknown) => {
        this.#context = undefined;
        throw new EngineFailure(
          'misconfigured',
          modelName,
          `Model '${modelName}' is offline: whisper.cpp could not load '${modelPath}' (${(error as Error).message}); it must be a ggml Whisper file (ggml-*.bin).`,
        );
      },
    );
    return this.#context;
  }

  #settled(job: WhisperJob, signal: AbortSignal): Promise<{ readonly result: string }> {
    const { modelName, timeoutMs } = this.#settings;
    return new Promise((resolve, reject) => {
      const finish = (failure: unknown): void => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        // Frees the context's lock once whisper.cpp sees the flag; the job's own promise is left behind.
        job.stop().catch(() => undefined);
        reject(failure);
      };
      const onAbort = (): void => finish(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
      const timer = setTimeout(
        () =>
          finish(
            new EngineFailure(
              'timeout',
              modelName,
              `Model '${modelName}' did not finish transcribing within ${timeoutMs / 1000} s; whisper.cpp failed on this audio or the machine is too busy.`,
            ),
          ),
        timeoutMs,
      );
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
      job.promise.then(
        (result) => {
          clearTimeout(timer);
          signal.removeEventListener('abort', onAbort);
          resolve(result);
        },
        (error: unknown) => finish(new EngineFailure('engine-error', modelName, `Model '${modelName}' failed to transcribe: ${(error as Error).message}.`)),
      );
    });
  }
}
