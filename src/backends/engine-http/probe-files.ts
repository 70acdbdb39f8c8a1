import { access, constants } from 'node:fs/promises';
import { basename } from 'node:path';
import type { ProbeResult } from '../../core/backends/backend.ts';
import { ProbeFailedError } from './probe-engine.ts';

/**
 * The probe of an engine that runs in this process from files (GGUF weights, ONNX models): it is
 * healthy while its files are readable, which is what its next load needs. The message names a
 * missing file by its base name only (the directory says where the host keeps its data).
 */
export async function probeFiles(files: readonly string[], signal: AbortSignal, detail: string): Promise<ProbeResult> {
  signal.throwIfAborted();
  for (const file of files) {
    try {
      await access(file, constants.R_OK);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
      throw new ProbeFailedError(`model file ${basename(file)} cannot be read (${code})`, undefined, { cause: error });
    }
  }
  return { detail };
}
