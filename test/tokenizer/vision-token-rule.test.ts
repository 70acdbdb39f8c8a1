import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { aspectRatioAllowed, imageTokens, videoTokens } from '../../src/core/media/vision-token-rule.ts';

/**
 * Expected values worked out by hand from the GLM-V processor's smart_resize (factor 28,
 * temporal patch 2, image pixels 12,544..11,760,000, video pixels up to 47,040,000) and its
 * frame sampling at 2 frames a second.
 */
describe('GLM-V vision token rule', () => {
  it('gives an image one token per 28x28 resized pixels, plus its begin and end markers', () => {
    // 480/28 = 17.1 -> 17, 640/28 = 22.9 -> 23: 391 tokens.
    assert.equal(imageTokens(640, 480), 17 * 23 + 2);
    // 2 x 28 x 28 pixels is under the lower bound: scaled by sqrt(8) = 2.83, each side ceil(2.83) x 28 = 84.
    assert.equal(imageTokens(28, 28), 3 * 3 + 2);
  });

  it('scales a small image up to the lower pixel bound', () => {
    // 2 x 56 x 56 < 12,544: beta = sqrt(12544 / (2 x 48 x 64)) = 1.43, so 84 x 112.
    assert.equal(imageTokens(64, 48), 3 * 4 + 2);
  });

  it('scales a large image down to the upper pixel bound', () => {
    // beta = sqrt(2 x 10^8 / 11,760,000) = 4.12: floor(10000 / 4.12 / 28) = 86 per side.
    assert.equal(imageTokens(10_000, 10_000), 86 * 86 + 2);
  });

  it("rounds halves to even, as Python's round does", () => {
    // 70/28 = 2.5 -> 2 (56), 98/28 = 3.5 -> 4 (112); 2 x 56 x 112 = 12,544 is within bounds.
    assert.equal(imageTokens(98, 70), 2 * 4 + 2);
  });

  it('samples a video at 2 frames a second and writes each temporal patch with its second', () => {
    // 3 s at 10 fps: frames 0, 5, 10, 15, 20, 25; 240x320 -> 252x308 (9 x 11 = 99 tokens a patch);
    // three patches stamped 0, 1, 2: 2 + 3 x (2 + 99 + 1).
    assert.equal(videoTokens({ width: 320, height: 240, durationSeconds: 3, framesPerSecond: 10, frameCount: 30 }), 2 + 3 * (2 + 99 + 1));
    // 1 s: frames 0 and 5, one patch; 64x48 scaled up to 84x112 (3 x 4 = 12).
    assert.equal(videoTokens({ width: 64, height: 48, durationSeconds: 1, framesPerSecond: 10, frameCount: 10 }), 2 + (2 + 12 + 1));
  });

  it('pads an odd frame count to even and caps long videos at 600 frames', () => {
    // 1.5 s at 2 fps: frames 0, 1, 2 -> 0, 1, 2, 2: two patches.
    const short = videoTokens({ width: 280, height: 280, durationSeconds: 1.5, framesPerSecond: 2, frameCount: 3 });
    assert.equal(short, 2 + 2 * (2 + 100 + 1));
    // An hour: 600 frames, 300 patches, stamped up to second 3600 (two tokens past 999).
    const hour = videoTokens({ width: 280, height: 280, durationSeconds: 3600, framesPerSecond: 25, frameCount: 90_000 });
    const tenMinutes = videoTokens({ width: 280, height: 280, durationSeconds: 600, framesPerSecond: 25, frameCount: 15_000 });
    assert.ok(hour > tenMinutes && hour < tenMinutes + 300, `${hour} vs ${tenMinutes}: the same 600 frames, longer timestamps`);
  });

  it('refuses pictures more than 200 times longer than wide', () => {
    assert.equal(aspectRatioAllowed(200, 1), true);
    assert.equal(aspectRatioAllowed(1, 201), false);
  });
});
