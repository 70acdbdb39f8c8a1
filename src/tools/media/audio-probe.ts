import type { AudioFormat } from '../../core/media/transcriber.ts';

export interface ProbedAudio {
  readonly format: AudioFormat;
  readonly durationSeconds: number;
}

/**
 * Reads an audio file's format and duration from its bytes, without decoding the samples: WAV
 * from its RIFF chunks, MP3 from its frame headers. Undefined when the bytes are neither (or are
 * too damaged to tell), so the caller can refuse them before an engine is called.
 */
export function probeAudio(bytes: Uint8Array): ProbedAudio | undefined {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.length >= 12 && view.toString('latin1', 0, 4) === 'RIFF' && view.toString('latin1', 8, 12) === 'WAVE') {
    const duration = wavDuration(view);
    return duration === undefined ? undefined : { format: 'wav', durationSeconds: duration };
  }
  const duration = mp3Duration(view);
  return duration === undefined ? undefined : { format: 'mp3', durationSeconds: duration };
}

/** data chunk size / byte rate; the fmt chunk (plain or WAVE_FORMAT_EXTENSIBLE) must come first. */
function wavDuration(view: Buffer): number | undefined {
  let offset = 12;
  let byteRate: number | undefined;
  while (offset + 8 <= view.length) {
    const id = view.toString('latin1', offset, offset + 4);
    const size = view.readUInt32LE(offset + 4);
    const body = offset + 8;
    if (id === 'fmt ') {
      if (size < 16 || body + 16 > view.length) return undefined;
      const channels = view.readUInt16LE(body + 2);
      const sampleRate = view.readUInt32LE(body + 4);
      byteRate = view.readUInt32LE(body + 8);
      if (channels === 0 || sampleRate === 0 || byteRate === 0) return undefined;
    } else if (id === 'data') {
      if (byteRate === undefined) return undefined;
      // Streamed WAVs (ffmpeg to a pipe) leave 0xFFFFFFFF or 0: the data then runs to the end.
      const available = view.length - body;
      const dataBytes = size === 0 || size > available ? available : size;
      if (dataBytes === 0) return undefined;
      return dataBytes / byteRate;
    }
    // Chunks are padded to an even size.
    offset = body + size + (size % 2);
  }
  return undefined;
}

interface FrameHeader {
  readonly length: number;
  readonly samples: number;
  readonly sampleRate: number;
  /** Bytes from the frame start to a Xing/Info tag (header + side information). */
  readonly xingOffset: number;
}

const bitratesKbps = {
  // [version 1 | version 2/2.5][layer I, II, III]
  v1: [
    [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],
    [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],
    [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  ],
  v2: [
    [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],
    [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
    [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
  ],
} as const;

const sampleRates = { 3: [44100, 48000, 32000], 2: [22050, 24000, 16000], 0: [11025, 12000, 8000] } as const;

/** Reads an MPEG audio frame header at `offset`; undefined when there is none. */
function frameHeaderAt(view: Buffer, offset: number): FrameHeader | undefined {
  if (offset + 4 > view.length) return undefined;
  const header = view.readUInt32BE(offset);
  if ((header & 0xffe00000) >>> 0 !== 0xffe00000) return undefined;
  const versionBits = (header >>> 19) & 3;
  const layerBits = (header >>> 17) & 3;
  const bitrateIndex = (header >>> 12) & 15;
  const rateIndex = (header >>> 10) & 3;
  if (versionBits === 1 || layerBits === 0 || bitrateIndex === 0 || bitrateIndex === 15 || rateIndex === 3) return undefined;
  const padding = (header >>> 9) & 1;
  const mono = ((header >>> 6) & 3) === 3;
  const version1 = versionBits === 3;
  const layer = 4 - layerBits; // 1, 2 or 3
  const sampleRate = sampleRates[versionBits as 0 | 2 | 3][rateIndex] ?? 0;
  const bitrate = (version1 ? bitratesKbps.v1 : bitratesKbps.v2)[layer - 1]?.[bitrateIndex] ?? 0;
  if (sampleRate === 0 || bitrate === 0) return undefined;
  if (layer === 1) return { length: (Math.floor((12 * bitrate * 1000) / sampleRate) + padding) * 4, samples: 384, sampleRate, xingOffset: 0 };
  const samples = layer === 3 && !version1 ? 576 : 1152;
  const length = Math.floor(((samples / 8) * bitrate * 1000) / sampleRate) + padding;
  const sideInformation = version1 ? (mono ? 17 : 32) : mono ? 9 : 17;
  return { length, samples, sampleRate, xingOffset: layer === 3 ? 4 + sideInformation : 0 };
}

/** Where the audio starts: after an ID3v2 tag, when there is one. */
function audioStart(view: Buffer): number {
  if (view.length < 10 || view.toString('latin1', 0, 3) !== 'ID3') return 0;
  // The tag size is a 28-bit "synchsafe" integer (7 bits per byte), plus a footer when flagged.
  const size = ((view[6] ?? 0) << 21) | ((view[7] ?? 0) << 14) | ((view[8] ?? 0) << 7) | (view[9] ?? 0);
  const footer = ((view[5] ?? 0) & 0x10) !== 0 ? 10 : 0;
  return 10 + size + footer;
}

/** How far past the tag a first frame is looked for (encoders pad; random bytes should not match). */
const frameSearchWindow = 4096;
/** Frames that must follow each other before bytes count as MP3. */
const framesToTrust = 3;

/** The Xing/Info frame count when the first frame has one, else all frames counted by walking their headers. */
function mp3Duration(view: Buffer): number | undefined {
  const start = audioStart(view);
  const searchEnd = Math.min(view.length, start + frameSearchWindow);
  for (let offset = start; offset < searchEnd; offset++) {
    const first = frameHeaderAt(view, offset);
    if (first === undefined) continue;
    const tagged = xingFrameCount(view, offset, first);
    if (tagged !== undefined) return (tagged * first.samples) / first.sampleRate;
    const walked = walkFrames(view, offset);
    if (walked !== undefined) return walked;
  }
  return undefined;
}

function xingFrameCount(view: Buffer, offset: number, frame: FrameHeader): number | undefined {
  const tag = offset + frame.xingOffset;
  if (frame.xingOffset === 0 || tag + 12 > view.length) return undefined;
  const id = view.toString('latin1', tag, tag + 4);
  if (id !== 'Xing' && id !== 'Info') return undefined;
  const hasFrameCount = (view.readUInt32BE(tag + 4) & 1) !== 0;
  return hasFrameCount ? view.readUInt32BE(tag + 8) : undefined;
}

function walkFrames(view: Buffer, start: number): number | undefined {
  let offset = start;
  let frames = 0;
  let seconds = 0;
  for (;;) {
    const frame = frameHeaderAt(view, offset);
    if (frame === undefined) break;
    frames++;
    seconds += frame.samples / frame.sampleRate;
    offset += frame.length;
  }
  // A truncated last frame or trailing tags (ID3v1, APE) are fine once the chain is long enough.
  return frames >= framesToTrust || (frames > 0 && offset >= view.length) ? seconds : undefined;
}
