import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Semaphore } from '../../core/backends/concurrency-limit.ts';
import { MediaReaderBusyError, MediaReaderMissingError, type VisualMedia, type VisualMediaReader } from '../../core/media/visual-media-reader.ts';
import { imageDimensions } from './media-signature.ts';

/** Reading a container's headers takes milliseconds; a stuck ffprobe must not hold a request. */
const probeTimeoutMs = 15_000;
/** ffprobe's JSON for one stream and the format is a few kB; more is not what was asked for. */
const maxProbeOutputBytes = 256 * 1024;

const ffprobeSlotCount = Math.max(2, availableParallelism());

/**
 * ffprobe processes at once for the whole server: each is a process and a temporary file. The
 * others wait their turn, taken by callers in rotation, so that one caller's many pictures do not
 * keep another caller's one waiting behind them all.
 */
export const ffprobeSlots = new Semaphore(ffprobeSlotCount);

/** Every slot stayed taken for as long as a probe may wait for one: the server is too busy reading media. */
export class FfprobeBusyError extends MediaReaderBusyError {
  constructor(waitedMs: number) {
    super(`no ffprobe slot came free within ${waitedMs / 1000} s (${ffprobeSlotCount} probes run at once)`);
  }
}

/** ffprobe is not on PATH: the server's installation is incomplete, whatever the media. */
class FfprobeMissingError extends MediaReaderMissingError {
  constructor() {
    super('ffprobe is not installed (it must be on PATH to read the size of videos and of images other than PNG and JPEG)');
  }
}

/** The platform's media reader: PNG and JPEG sizes from their headers, everything else through ffprobe. */
export const ffprobeMediaReader: VisualMediaReader = {
  imageSize: imageDimensions,
  probe: (bytes, caller, signal) => probeVisualMedia(bytes, caller, signal),
};

/**
 * The size and timing of an image or video, read by ffprobe from its headers (nothing decoded
 * but what the container needs). The bytes go through a temporary file: an MP4 whose index sits
 * at its end cannot be probed from a pipe. `caller` (the API key) takes its turn for a probe slot
 * among the callers waiting. Rejects when ffprobe finds no picture stream, and with
 * FfprobeBusyError when no probe slot comes free within `slotWaitMs`.
 */
export async function probeVisualMedia(bytes: Uint8Array, caller: string, signal: AbortSignal, slotWaitMs = probeTimeoutMs): Promise<VisualMedia> {
  const release = await ffprobeSlots.acquire(caller, signal, { wait: { ms: slotWaitMs, busy: () => new FfprobeBusyError(slotWaitMs) } });
  let directory: string | undefined;
  try {
    directory = await mkdtemp(join(tmpdir(), 'model-platform-probe-'));
    const input = join(directory, 'media');
    await writeFile(input, bytes);
    const output = await runFfprobe(
      [
        '-v',
        'error',
        '-select_streams',
        'v:0',
        '-show_entries',
        'stream=width,height,avg_frame_rate,r_frame_rate,nb_frames,duration:format=duration',
        '-of',
        'json',
        input,
      ],
      signal,
    );
    return readProbe(output);
  } finally {
    if (directory !== undefined) await rm(directory, { recursive: true, force: true });
    release();
  }
}

function readProbe(output: string): VisualMedia {
  let parsed: unknown;
  try {
    parsed = JSON.parse(output);
  } catch {
    throw new Error('ffprobe answered something other than JSON');
  }
  const root = (parsed ?? {}) as { streams?: unknown; format?: unknown };
  const stream = (Array.isArray(root.streams) ? root.streams[0] : undefined) as Record<string, unknown> | undefined;
  const format = (root.format ?? {}) as Record<string, unknown>;
  const width = positiveInteger(stream?.['width']);
  const height = positiveInteger(stream?.['height']);
  if (stream === undefined || width === undefined || height === undefined) throw new Error('it holds no picture ffprobe can read');
  const duration = positiveNumber(stream['duration']) ?? positiveNumber(format['duration']) ?? 0;
  const rate = frameRate(stream['avg_frame_rate']) ?? frameRate(stream['r_frame_rate']) ?? 0;
  return { width, height, durationSeconds: duration, framesPerSecond: rate, frameCount: positiveInteger(stream['nb_frames']) };
}

/** `30000/1001`, `25/1`; `0/0` (unknown) is undefined. */
function frameRate(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const [numerator, denominator] = value.split('/').map(Number);
  if (numerator === undefined || denominator === undefined || !(denominator > 0)) return undefined;
  return positiveNumber(numerator / denominator);
}

function positiveNumber(value: unknown): number | undefined {
  const number = typeof value === 'string' ? Number(value) : value;
  return typeof number === 'number' && Number.isFinite(number) && number > 0 ? number : undefined;
}

function positiveInteger(value: unknown): number | undefined {
  const number = positiveNumber(value);
  return number !== undefined && Number.isInteger(number) ? number : undefined;
}

function runFfprobe(args: readonly string[], signal: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    signal.throwIfAborted();
    const child = spawn('ffprobe', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const output: Buffer[] = [];
    let outputBytes = 0;
    let overCap = false;
    let errorText = '';
    const kill = () => child.kill('SIGKILL');
    const timer = setTimeout(kill, probeTimeoutMs);
    signal.addEventListener('abort', kill, { once: true });
    child.stdout.on('data', (chunk: Buffer) => {
      outputBytes += chunk.length;
      if (outputBytes > maxProbeOutputBytes) {
        overCap = true;
        kill();
      } else output.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      errorText = (errorText + chunk.toString('utf8')).slice(-1000);
    });
    const finish = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', kill);
    };
    child.on('error', (error: NodeJS.ErrnoException) => {
      finish();
      reject(error.code === 'ENOENT' ? new FfprobeMissingError() : error);
    });
    child.on('close', (code, killedBy) => {
      finish();
      if (signal.aborted) reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
      else if (overCap) reject(new Error(`ffprobe wrote more than ${maxProbeOutputBytes} bytes`));
      else if (code === 0) resolve(Buffer.concat(output).toString('utf8'));
      else if (killedBy !== null) reject(new Error(`ffprobe did not finish within ${probeTimeoutMs / 1000} s`));
      else reject(new Error(`it cannot be read (${errorText.trim().split('\n').at(-1) || `ffprobe exit code ${code}`})`));
    });
  });
}
