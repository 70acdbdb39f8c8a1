import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { BlobUrlSigner } from '../../src/blobs/blob-url-signer.ts';
import { LocalBlobStore } from '../../src/blobs/local-blob-store.ts';
import { generateImages } from '../../src/core/media/generate-images.ts';
import { generateVideo } from '../../src/core/media/generate-video.ts';
import { extractFirstFrame } from '../../src/tools/media/first-frame.ts';
import { assertApiError, assertEngineFailure, rejection } from '../helpers/api-error-assertions.ts';

/** What the platform makes of an engine's media answer it cannot use: the engine's broken answer, answered 500 as before. */
describe("media generation: an engine's unusable answer is the engine's failure", () => {
  const root = mkdtempSync(join(tmpdir(), 'generate-media-'));
  const blobs = new LocalBlobStore(join(root, 'blobs'), new BlobUrlSigner(Buffer.alloc(32, 1), 3600, undefined));
  after(() => rmSync(root, { recursive: true, force: true }));

  it('no image at all', async () => {
    const backends = { capability: () => ({ generate: () => Promise.resolve({ images: [], contentFilter: undefined }) }) };
    const job = { model: 'my-painter', prompt: 'a dot', width: 64, height: 64, quality: 'standard' as const };
    const error = await rejection(generateImages({ backends, blobs }, job, { id: 'task-1', asyncTask: false, signal: AbortSignal.timeout(10_000) }));
    assertEngineFailure(error, 'bad-answer', 'my-painter', 'returned no image');
    assertApiError(error, '500');
  });

  it('a video ffmpeg cannot read a first frame from, for its cover', async () => {
    const backends = { capability: () => ({ generate: () => Promise.resolve({ bytes: Buffer.from('not a video at all'), contentType: 'video/mp4' }) }) };
    const job = {
      model: 'my-director',
      prompt: 'a dot',
      images: [],
      quality: 'speed' as const,
      withAudio: false,
      size: undefined,
      fps: 30 as const,
      durationSeconds: 5 as const,
    };
    const error = await rejection(generateVideo({ backends, blobs, extractFirstFrame }, job, { id: 'task-2', signal: AbortSignal.timeout(30_000) }));
    assertEngineFailure(error, 'bad-answer', 'my-director', 'no readable first frame');
    assertApiError(error, '500');
  });
});
