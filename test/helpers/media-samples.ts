import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * Real media made by ffmpeg for tests: images from lavfi sources, and an MP4 written to a file
 * (so its index sits at the end, as encoders write it) and read back.
 */
async function ffmpegToFile(args: readonly string[], name: string): Promise<Buffer> {
  const directory = await mkdtemp(join(tmpdir(), 'media-sample-'));
  try {
    const output = join(directory, name);
    await run('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', ...args, output], { maxBuffer: 64 * 1024 * 1024 });
    return await readFile(output);
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

/** A solid-colour PNG. */
export function samplePng(width = 64, height = 48, color = 'red'): Promise<Buffer> {
  return ffmpegToFile(['-f', 'lavfi', '-i', `color=c=${color}:s=${width}x${height}`, '-frames:v', '1', '-pix_fmt', 'rgb24'], 'image.png');
}

export function sampleJpeg(width = 64, height = 48, color = 'blue'): Promise<Buffer> {
  return ffmpegToFile(['-f', 'lavfi', '-i', `color=c=${color}:s=${width}x${height}`, '-frames:v', '1', '-pix_fmt', 'yuvj420p'], 'image.jpg');
}

export function sampleGif(width = 64, height = 48): Promise<Buffer> {
  return ffmpegToFile(['-f', 'lavfi', '-i', `color=c=green:s=${width}x${height}`, '-frames:v', '1'], 'image.gif');
}

/** A PNG of random noise (nearly incompressible): 2400x1800 is about 6.3 MB. */
export function sampleNoisePng(width = 2400, height = 1800): Promise<Buffer> {
  return ffmpegToFile(
    ['-f', 'lavfi', '-i', `nullsrc=s=${width}x${height},geq=r='random(1)*255':g='random(2)*255':b='random(3)*255'`, '-frames:v', '1', '-pix_fmt', 'rgb24'],
    'noise.png',
  );
}

/** An H.264 MP4 of ffmpeg's test pattern at 10 frames a second (1 s unless told), whose first frame is the pattern's. */
export function sampleMp4(width = 64, height = 48, seconds = 1): Promise<Buffer> {
  return ffmpegToFile(
    ['-f', 'lavfi', '-i', `testsrc=size=${width}x${height}:rate=10`, '-t', String(seconds), '-pix_fmt', 'yuv420p', '-c:v', 'libx264'],
    'video.mp4',
  );
}
