// A worker thread of OcrWorkerPool (run by tinypool): it holds its own onnxruntime sessions and
// reads one page at a time, so inference never runs on the server's event loop.
import { receiveMessageOnPort, workerData } from 'node:worker_threads';
import { loadOcrModels, type OcrModels } from './ocr-models.ts';
import type { OcrWorkerReply, OcrWorkerSettings, OcrWorkerTask } from './ocr-worker-messages.ts';
import { readPage } from './page-reading.ts';

// tinypool hands a worker its pool's workerData second, after its own.
const [, { threads }] = workerData as [unknown, OcrWorkerSettings];

let models: Promise<OcrModels> | undefined;

function loadedModels(): Promise<OcrModels> {
  if (models === undefined) {
    const loading = loadOcrModels({ threads });
    // A failed load is not kept: the next task tries again.
    loading.catch(() => {
      if (models === loading) models = undefined;
    });
    models = loading;
  }
  return models;
}

/** Reads a page or loads the models; a failure is answered, not thrown, so that its name crosses to the pool. */
export default async function answer(task: OcrWorkerTask): Promise<OcrWorkerReply> {
  const controller = new AbortController();
  if (task.kind === 'read') {
    // A page given up while it waited for this worker has its abort here already.
    if (receiveMessageOnPort(task.abort) !== undefined) controller.abort();
    else task.abort.once('message', () => controller.abort());
  }
  try {
    const loaded = await loadedModels();
    if (task.kind === 'load') return { lines: [] };
    return { lines: await readPage(loaded, task.raster, task.settings, controller.signal) };
  } catch (error) {
    const { name, message } = error instanceof Error ? error : new Error(String(error));
    return { error: { name, message } };
  } finally {
    if (task.kind === 'read') task.abort.close();
  }
}
