import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { EngineFailure } from '../../core/errors/engine-failure.ts';
import { runWithDeadline } from '../../core/media/run-with-deadline.ts';
import type { ComfyFile, ComfyUiClient } from './comfyui-client.ts';
import { readHistoryEntry, type ComfyOutput } from './comfyui-history.ts';
import type { ComfyWorkflow, WorkflowValues } from './comfyui-workflow.ts';

export interface ComfyRunSettings {
  readonly modelName: string;
  readonly workflow: ComfyWorkflow;
  readonly client: ComfyUiClient;
  readonly timeoutMs: number;
  readonly pollIntervalMs: number;
}

export interface ComfyRun<Result> {
  /** The placeholder values; may upload input images first (inside the deadline). */
  values(signal: AbortSignal): Promise<WorkflowValues>;
  /** Turns the finished prompt's outputs into the result; `view` downloads one file. */
  collect(outputs: readonly ComfyOutput[], view: (file: ComfyFile) => Promise<Uint8Array>, signal: AbortSignal): Promise<Result>;
}

/**
 * One generation on ComfyUI: fill the workflow, queue it, poll its history until it has finished
 * (ComfyUI writes history only at the end), then collect the outputs; all within `timeoutMs`. A
 * caller who goes away or a deadline that passes takes the prompt off ComfyUI's queue.
 */
export async function runComfyWorkflow<Result>(settings: ComfyRunSettings, run: ComfyRun<Result>, callerSignal: AbortSignal): Promise<Result> {
  const { modelName, workflow, client } = settings;
  const timeoutError = () =>
    new EngineFailure(
      'timeout',
      modelName,
      `ComfyUI did not finish the workflow of model '${modelName}' within ${settings.timeoutMs / 1000} s (timeoutMs); the prompt was cancelled.`,
    );
  return runWithDeadline(callerSignal, settings.timeoutMs, timeoutError, async (signal) => {
    const values = await run.values(signal);
    let filled: Record<string, unknown>;
    try {
      filled = workflow.fill(values);
    } catch (error) {
      throw new EngineFailure(
        'engine-error',
        modelName,
        `The workflow of model '${modelName}' (${workflow.path}) cannot be filled: ${(error as Error).message}.`,
      );
    }
    const promptId = await client.queuePrompt(filled, `model-platform-${randomUUID()}`, workflow.path, signal);
    try {
      for (;;) {
        const outcome = readHistoryEntry(await client.history(promptId, signal));
        if (outcome.state === 'failed') {
          throw new EngineFailure(
            'engine-error',
            modelName,
            `ComfyUI failed to run the workflow of model '${modelName}' (${workflow.path}): ${outcome.reason}.`,
          );
        }
        if (outcome.state === 'done') return await run.collect(outcome.outputs, (file) => client.view(file, signal), signal);
        await sleep(settings.pollIntervalMs, undefined, { signal });
      }
    } catch (error) {
      if (signal.aborted) void client.cancel(promptId);
      throw error;
    }
  });
}

/** Files of `outputs` that `accept` takes; saved outputs before previews (`temp`), as those are what a workflow means to keep. */
export function pickOutputs(outputs: readonly ComfyOutput[], accept: (file: ComfyOutput) => boolean): ComfyOutput[] {
  const accepted = outputs.filter(accept);
  const saved = accepted.filter((file) => file.type === 'output');
  return saved.length > 0 ? saved : accepted;
}

export function extensionOfFile(filename: string): string {
  const dot = filename.lastIndexOf('.');
  return dot < 0 ? '' : filename.slice(dot + 1).toLowerCase();
}
