import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A still frame should take well under a second; a stuck ffmpeg must not hold a task forever. */
const extractionTimeoutMs = 60_000;

/** Most bytes of the frame: a video of absurd dimensions (its engine's, or a caller's) must not fill the memory. */
const maxFrameBytes = 64 * 1024 * 1024;

/**
 * The first frame of a video as a PNG, made by ffmpeg. The video goes through a temporary file,
 * not a pipe: an MP4 whose index (`moov`) sits at the end, as most encoders write it, cannot be
 * read from a pipe. The frame comes back on stdout (image2pipe), so nothing else touches disk.
 */
export async function extractFirstFrame(
  video: Uint8Array,
  signal?: AbortSignal,
  maxBytes = maxFrameBytes,
): Promise<{ readonly bytes: Uint8Array; readonly contentType: 'image/png' }> {
  const directory = await mkdtemp(join(tmpdir(), 'model-platform-frame-'));
  try {
    const input = join(directory, 'video');
    await writeFile(input, video);
    const bytes = await runFfmpeg(
      ['-hide_banner', '-loglevel', 'error', '-nostdin', '-i', input, '-frames:v', '1', '-f', 'image2pipe', '-vcodec', 'png', 'pipe:1'],
      signal,
      maxBytes,
    );
    if (bytes.length === 0) throw new Error('ffmpeg found no video frame');
    return { bytes, contentType: 'image/png' };
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

function runFfmpeg(args: readonly string[], signal: AbortSignal | undefined, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn('ffmpeg', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const output: Buffer[] = [];
    let errorText = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), extractionTimeoutMs);
    const onAbort = () => child.kill('SIGKILL');
    signal?.addEventListener('abort', onAbort, { once: true });
    let outputBytes = 0;
    let overCap = false;
    child.stdout.on('data', (chunk: Buffer) => {
      outputBytes += chunk.length;
      if (outputBytes > maxBytes) {
        overCap = true;
        output.length = 0;
        child.kill('SIGKILL');
        return;
      }
      if (!overCap) output.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      // The last words say what went wrong; a corrupt input can print a lot.
      errorText = (errorText + chunk.toString('utf8')).slice(-2000);
    });
    child.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      reject(error.code === 'ENOENT' ? new Error('ffmpeg is not installed (it must be on PATH to make video covers)') : error);
    });
    child.on('close', (code, killedBy) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      if (signal?.aborted === true) reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
      else if (overCap) reject(new Error(`the video's first frame is larger than ${maxBytes} bytes as a PNG`));
      else if (code === 0) resolve(Buffer.concat(output));
      else if (killedBy !== null) reject(new Error(`ffmpeg did not finish within ${extractionTimeoutMs / 1000} s`));
      else reject(new Error(`ffmpeg could not read the video: ${errorText.trim().split('\n').slice(-3).join(' ') || `exit code ${code}`}`));
    });
  });
}
