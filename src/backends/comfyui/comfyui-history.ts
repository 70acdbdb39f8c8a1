import { asArray, asRecord, asString } from '../engine-http/wire-reading.ts';
import type { ComfyFile } from './comfyui-client.ts';

/** An output file and the key it was listed under (`images`, `gifs`, `videos`, ...). */
export interface ComfyOutput extends ComfyFile {
  readonly kind: string;
}

export type ComfyOutcome =
  { readonly state: 'pending' } | { readonly state: 'failed'; readonly reason: string } | { readonly state: 'done'; readonly outputs: readonly ComfyOutput[] };

/**
 * Reads a prompt's history entry. ComfyUI writes it once the prompt has finished: `status`
 * says success or error (with `execution_error` among its messages), and `outputs` lists, per
 * output node, the files it saved: SaveImage under `images`, VideoHelperSuite under `gifs`
 * (whatever the format), SaveVideo and others under `videos` or `images`.
 */
export function readHistoryEntry(entry: unknown): ComfyOutcome {
  const record = asRecord(entry);
  if (record === undefined) return { state: 'pending' };
  const status = asRecord(record['status']);
  const messages = asArray(status?.['messages']);
  const failure = messages.map((message) => asArray(message)).find(([name]) => name === 'execution_error' || name === 'execution_interrupted');
  if (failure !== undefined || asString(status?.['status_str']) === 'error') {
    return { state: 'failed', reason: describeFailure(failure) };
  }
  if (status?.['completed'] === false) return { state: 'failed', reason: 'the prompt did not complete' };
  const outputs: ComfyOutput[] = [];
  for (const node of Object.values(asRecord(record['outputs']) ?? {})) {
    for (const [kind, files] of Object.entries(asRecord(node) ?? {})) {
      for (const file of asArray(files)) {
        const fields = asRecord(file);
        const filename = asString(fields?.['filename']);
        if (filename === undefined) continue; // `animated: [true]`, text outputs and the like
        outputs.push({ kind, filename, subfolder: asString(fields?.['subfolder']) ?? '', type: asString(fields?.['type']) ?? 'output' });
      }
    }
  }
  return { state: 'done', outputs };
}

function describeFailure(message: readonly unknown[] | undefined): string {
  const [name, data] = message ?? [];
  const details = asRecord(data);
  const node = details === undefined ? '' : `node ${asString(details['node_id']) ?? '?'} (${asString(details['node_type']) ?? 'unknown type'})`;
  if (name === 'execution_interrupted') return `the prompt was interrupted${node === '' ? '' : ` at ${node}`}`;
  const exception = [asString(details?.['exception_type']), asString(details?.['exception_message'])?.trim()].filter(Boolean).join(': ');
  if (node === '' && exception === '') return 'the prompt failed (status error, no details)';
  return `${node}${node !== '' && exception !== '' ? ' failed: ' : ''}${exception}`;
}

/** `node_errors` of a refused prompt, in one line: `node 4 (CheckpointLoaderSimple): ckpt_name: Value not in list`. */
export function describeNodeErrors(nodeErrors: unknown): string {
  const parts: string[] = [];
  for (const [id, value] of Object.entries(asRecord(nodeErrors) ?? {})) {
    const node = asRecord(value);
    const errors = asArray(node?.['errors']).map((error) => {
      const fields = asRecord(error);
      return [asString(fields?.['message']), asString(fields?.['details'])].filter(Boolean).join(': ');
    });
    parts.push(`node ${id} (${asString(node?.['class_type']) ?? 'unknown type'}): ${errors.join('; ') || 'invalid'}`);
  }
  return parts.join('; ');
}
