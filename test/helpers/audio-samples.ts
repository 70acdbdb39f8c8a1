import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface AudioSamples {
  /** Speech made by espeak-ng. */
  readonly wav: Buffer;
  /** The same speech, encoded by ffmpeg (lame). */
  readonly mp3: Buffer;
  /** 31 s of silence, one second over the limit. */
  readonly longWav: Buffer;
  readonly longMp3: Buffer;
}

/** Real audio files, made with the Debian espeak-ng and ffmpeg the CI installs. */
export async function makeAudioSamples(speech: string): Promise<AudioSamples> {
  const directory = await mkdtemp(join(tmpdir(), 'audio-samples-'));
  try {
    const path = (name: string) => join(directory, name);
    await run('espeak-ng', ['-w', path('speech.wav'), speech]);
    const ffmpeg = (...args: string[]) => run('ffmpeg', ['-loglevel', 'error', '-y', ...args]);
    await ffmpeg('-i', path('speech.wav'), path('speech.mp3'));
    await ffmpeg('-f', 'lavfi', '-i', 'anullsrc=r=16000:cl=mono', '-t', '31', path('long.wav'));
    await ffmpeg('-i', path('long.wav'), path('long.mp3'));
    const [wav, mp3, longWav, longMp3] = await Promise.all(['speech.wav', 'speech.mp3', 'long.wav', 'long.mp3'].map((name) => readFile(path(name))));
    return { wav: wav ?? Buffer.alloc(0), mp3: mp3 ?? Buffer.alloc(0), longWav: longWav ?? Buffer.alloc(0), longMp3: longMp3 ?? Buffer.alloc(0) };
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}
