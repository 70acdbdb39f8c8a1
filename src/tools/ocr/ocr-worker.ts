// A worker thread of OcrWorkerPool: it holds its own onnxruntime sessions and reads one page at a
// time, so inference never runs on the server's event loop.
import { parentPort, workerData } from 'node:worker_threads';
import { loadOcrModels, type OcrModels } from './ocr-models.ts';
import type { OcrWorkerReply, OcrWorkerRequest, OcrWorkerSettings } from './ocr-worker-messages.ts';
import { readPage } from './page-reading.ts';

const port = parentPort;
if (port === null) throw new Error('ocr-worker.ts runs as a worker thread of OcrWorkerPool');
const { threads } = workerData as OcrWorkerSettings;

let models: Promise<OcrModels> | undefined;

function loadedModels(): Promise<OcrModels> {
  if (models === undefined) {
    const loading = loadOcrModels({ threads });
    // A failed load is not kept: the next request tries again.
    loading.catch(() => {
      if (models === loading) models = undefined;
    });
    models = loading;
  }
  return models;
}

/** Reads in progress, so that an abort from the pool reaches the right one. */
const running = new Map<number, AbortController>();

async function answer(request: Extract<OcrWorkerRequest, { kind: 'read' | 'load' }>): Promise<OcrWorkerReply> {
  const controller = new AbortController();
  running.set(request.id, controller);
  try {
    const loaded = await loadedModels();
    if (request.kind === 'load') return { id: request.id, lines: [] };
    return { id: request.id, lines: await readPage(loaded, request.raster, request.settings, controller.signal) };
  } catch (error) {
    const { name, message } = error instanceof Error ? error : new Error(String(error));
    return { id: request.id, error: { name, message } };
  } finally {
    running.delete(request.id);
  }
}

port.on('message', (request: OcrWorkerRequest) => {
  if (request.kind === 'abort') {
    running.get(request.id)?.abort();
    return;
  }
  void answer(request).then((reply) => port.postMessage(reply));
});
