import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A tiny random-weight Whisper model in whisper.cpp's ggml format (the `ggml-*.bin` files of the
 * hub's ggerganov/whisper.cpp): English-only vocabulary size (51864, so the special and timestamp
 * tokens sit where whisper.cpp expects them), Whisper's real audio and text context (1500 and
 * 448, 80 mel bands), one layer of width 64 in each stack. The weights are random, so what it
 * writes is noise: it exercises the pipeline (decoding, mel, encoder, decoder, timestamps), never
 * the words. Written once under the OS temp dir.
 */
export function writeTinyWhisperModel(): string {
  const directory = join(tmpdir(), 'model-platform-tiny-whisper');
  const path = join(directory, 'ggml-tiny-whisper.bin');
  if (existsSync(path)) return path;
  mkdirSync(directory, { recursive: true });
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, buildTinyWhisperModel());
  // Renamed into place whole, so a concurrent test never reads half a file.
  renameSync(temporary, path);
  return path;
}

const hparams = { vocab: 51864, audioCtx: 1500, state: 64, heads: 2, layers: 1, textCtx: 448, mels: 80 } as const;
const textTokens = 50256;
const fft = 201;
const f32 = 0;
const f16 = 1;

/**
 * Letters, then the lone space whisper.cpp looks up by text (it suppresses a blank first token and
 * throws when the vocabulary has none), then made-up words.
 */
function textWord(id: number): string {
  if (id < 26) return String.fromCharCode(97 + id);
  return id === 26 ? ' ' : ` w${id}`;
}

function buildTinyWhisperModel(): Buffer {
  const random = seededRandom(7);
  const parts: Buffer[] = [];
  const int32 = (...values: number[]) => {
    const buffer = Buffer.alloc(4 * values.length);
    values.forEach((value, index) => buffer.writeInt32LE(value, index * 4));
    parts.push(buffer);
  };
  int32(0x67676d6c);
  int32(
    hparams.vocab,
    hparams.audioCtx,
    hparams.state,
    hparams.heads,
    hparams.layers,
    hparams.textCtx,
    hparams.state,
    hparams.heads,
    hparams.layers,
    hparams.mels,
    f16,
  );
  int32(hparams.mels, fft);
  parts.push(float32s(hparams.mels * fft, () => random() * 0.02));
  int32(textTokens);
  for (let id = 0; id < textTokens; id += 1) {
    const word = Buffer.from(textWord(id), 'utf8');
    int32(word.length);
    parts.push(word);
  }
  const tensor = (name: string, shape: readonly number[], type: typeof f32 | typeof f16, scale = 0.05) => {
    const encoded = Buffer.from(name, 'utf8');
    int32(shape.length, encoded.length, type);
    int32(...shape);
    parts.push(encoded);
    const count = shape.reduce((product, size) => product * size, 1);
    parts.push(type === f32 ? float32s(count, () => (random() * 2 - 1) * scale) : float16s(count, random));
  };
  const { state, mels, audioCtx, textCtx, vocab } = hparams;
  const ones = (name: string) => tensor(name, [state], f32, 0);
  tensor('encoder.positional_embedding', [state, audioCtx], f32);
  tensor('encoder.conv1.weight', [3, mels, state], f16);
  tensor('encoder.conv1.bias', [1, state], f32);
  tensor('encoder.conv2.weight', [3, state, state], f16);
  tensor('encoder.conv2.bias', [1, state], f32);
  for (const prefix of ['encoder.blocks.0', 'decoder.blocks.0']) {
    const attentions = prefix.startsWith('encoder') ? ['attn'] : ['attn', 'cross_attn'];
    tensor(`${prefix}.mlp_ln.weight`, [state], f32);
    ones(`${prefix}.mlp_ln.bias`);
    tensor(`${prefix}.mlp.0.weight`, [state, 4 * state], f16);
    tensor(`${prefix}.mlp.0.bias`, [4 * state], f32);
    tensor(`${prefix}.mlp.2.weight`, [4 * state, state], f16);
    tensor(`${prefix}.mlp.2.bias`, [state], f32);
    for (const attention of attentions) {
      tensor(`${prefix}.${attention}_ln.weight`, [state], f32);
      ones(`${prefix}.${attention}_ln.bias`);
      tensor(`${prefix}.${attention}.query.weight`, [state, state], f16);
      tensor(`${prefix}.${attention}.query.bias`, [state], f32);
      tensor(`${prefix}.${attention}.key.weight`, [state, state], f16);
      tensor(`${prefix}.${attention}.value.weight`, [state, state], f16);
      tensor(`${prefix}.${attention}.value.bias`, [state], f32);
      tensor(`${prefix}.${attention}.out.weight`, [state, state], f16);
      tensor(`${prefix}.${attention}.out.bias`, [state], f32);
    }
  }
  tensor('encoder.ln_post.weight', [state], f32);
  ones('encoder.ln_post.bias');
  tensor('decoder.positional_embedding', [state, textCtx], f32);
  tensor('decoder.token_embedding.weight', [state, vocab], f16);
  tensor('decoder.ln.weight', [state], f32);
  ones('decoder.ln.bias');
  return Buffer.concat(parts);
}

function float32s(count: number, value: () => number): Buffer {
  const buffer = Buffer.alloc(count * 4);
  for (let index = 0; index < count; index += 1) buffer.writeFloatLE(value(), index * 4);
  return buffer;
}

/** Half floats of magnitude 2^-8 to 2^-4 with random sign and mantissa, written as their bits. */
function float16s(count: number, random: () => number): Buffer {
  const buffer = Buffer.alloc(count * 2);
  for (let index = 0; index < count; index += 1) {
    const sign = random() < 0.5 ? 0x8000 : 0;
    const exponent = 7 + Math.floor(random() * 5);
    const mantissa = Math.floor(random() * 1024);
    buffer.writeUInt16LE(sign | (exponent << 10) | mantissa, index * 2);
  }
  return buffer;
}

function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}
