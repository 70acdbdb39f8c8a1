import type { BlobStore } from '../blobs/blob-store.ts';
import { EngineFailure } from '../errors/engine-failure.ts';
import type { CapabilitySource } from '../models/capability.ts';
import type { ContentFilterVerdict } from './image-generator.ts';
import { extensionOf } from './media-blobs.ts';

/** The engines image generation needs (the ModelBackends gives them). */
export type ImageEngines = CapabilitySource<'image'>;

/**
 * One image generation as the platform runs it, defaults applied: the synchronous route builds
 * it from the request, and an asynchronous task keeps it as its request (plain JSON).
 */
export interface ImageJob {
  readonly model: string;
  readonly prompt: string;
  readonly width: number;
  readonly height: number;
  readonly quality: 'hd' | 'standard';
}

export interface StoredImages {
  /** Blob keys, in the engine's order. */
  readonly keys: readonly string[];
  readonly contentFilter: readonly ContentFilterVerdict[] | undefined;
}

/**
 * Runs the model's image engine and stores every image under `images/<id>/<n>.<ext>`; shared by
 * POST /images/generations and the `image` task. The keys are deterministic, so a task that is
 * run again overwrites what an earlier attempt stored.
 */
export async function generateImages(
  deps: { readonly backends: ImageEngines; readonly blobs: BlobStore },
  job: ImageJob,
  options: { readonly id: string; readonly asyncTask: boolean; readonly signal: AbortSignal },
): Promise<StoredImages> {
  const engine = deps.backends.capability(job.model, 'image');
  const generated = await engine.generate({ ...job, asyncTask: options.asyncTask, signal: options.signal });
  if (generated.images.length === 0) throw new EngineFailure('bad-answer', job.model, `The engine of model '${job.model}' returned no image.`);
  const keys: string[] = [];
  for (const [index, image] of generated.images.entries()) {
    const key = `images/${options.id}/${index}.${extensionOf(image.contentType)}`;
    await deps.blobs.put(key, image.bytes, image.contentType);
    keys.push(key);
  }
  return { keys, contentFilter: generated.contentFilter };
}
