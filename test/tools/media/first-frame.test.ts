import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { extractFirstFrame } from '../../../src/tools/media/first-frame.ts';
import { sampleMp4 } from '../../helpers/media-samples.ts';

describe('extractFirstFrame', () => {
  it("gives a video's first frame as a PNG", async () => {
    const frame = await extractFirstFrame(await sampleMp4(64, 48));
    assert.equal(frame.contentType, 'image/png');
    assert.deepEqual([...frame.bytes.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47]);
  });

  it('refuses a frame over its byte cap instead of holding it in memory', async () => {
    const video = await sampleMp4(640, 480);
    await assert.rejects(extractFirstFrame(video, undefined, 1_000), /larger than 1000 bytes/);
  });
});
