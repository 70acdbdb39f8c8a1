import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A tiny llama-architecture GGUF (v3) with random F32 weights, written in plain JS so that tests
 * run the real llama.cpp engine without downloading a model. The shape is the smallest that
 * llama.cpp loads as an ordinary model: a SentencePiece ("llama") vocab of printable pieces plus
 * the 256 `<0xXX>` byte-fallback tokens (so any text tokenizes), ChatML control tokens and a
 * ChatML chat template that renders tools, 2 layers of width 64. Deterministic from the seed.
 * Another chat format (its template and special tokens) can be given instead of ChatML.
 */
export interface TinyGgufOptions {
  /** Seeds the weights; the same seed gives the same file. */
  readonly seed?: number;
  /** `llama.context_length`, the context the model claims to be trained on. */
  readonly contextLength?: number;
  /** The chat format the model carries; ChatML (in Qwen 2.5's form) when left out. */
  readonly chat?: TinyGgufChat;
  /**
   * The transformer's size; 2 layers of width 64 when left out. A larger one costs the engine what
   * a small real model costs per token (a benchmark's realistic size), at the same vocabulary.
   */
  readonly shape?: TinyGgufShape;
}

/** Layers and width; the rest follows from the width as in the default shape (see shapeOf). */
export interface TinyGgufShape {
  readonly layers: number;
  /** `embedding_length`: a multiple of 64. */
  readonly width: number;
}

/**
 * A chat format: its template, its special tokens and which of them end a turn. Logit offsets
 * steer what random weights sample, so that an engine's output parser sees the markers it looks
 * for (a reasoning end, a tool call) and never sees what it cannot parse.
 */
export interface TinyGgufChat {
  /** `tokenizer.chat_template` (Jinja). */
  readonly template: string;
  /** The template's special tokens, added to the vocabulary as control tokens (ids from 3 on, in this order). */
  readonly controlTokens: readonly string[];
  /** `tokenizer.ggml.eos_token_id`: one of controlTokens. */
  readonly endOfText: string;
  /** `tokenizer.ggml.eot_token_id` (end of turn), also ends generation: one of controlTokens. */
  readonly endOfTurn?: string;
  /** `tokenizer.ggml.eom_token_id` (end of message, e.g. a tool observation follows), also ends generation. */
  readonly endOfMessage?: string;
  /**
   * Offsets added to tokens' logits, by token text, in units of about 4 logits (through a constant
   * embedding dimension, see buildTensors). Tokens not named get none.
   */
  readonly logitOffsets?: ReadonlyMap<string, number>;
  /**
   * The same offset for the 256 `<0xXX>` byte-fallback tokens. Random weights string bytes into
   * invalid UTF-8, which an engine that parses its own output refuses; a large negative offset
   * keeps them for tokenizing any input while the model never samples them.
   */
  readonly byteTokenOffset?: number;
  /**
   * Pairs `[a, b]`: right after token `a` the model says `b` (almost always), e.g. a tool call's
   * close followed by the end of the turn, as a trained model does. At most 8 pairs.
   */
  readonly followers?: readonly (readonly [string, string])[];
}

/** Token ids the tests may rely on. */
const tinyGgufTokens = { unknown: 0, bos: 1, eos: 2, imStart: 3, imEnd: 4 } as const;

/** ChatML in the form Qwen 2.5 uses, including its `<tools>` system block and `<tool_call>` turns. */
const tinyChatTemplate = [
  '{%- if tools %}',
  '{{- "<|im_start|>system\\n" }}',
  '{%- if messages[0].role == "system" %}{{- messages[0].content + "\\n\\n" }}{%- endif %}',
  '{{- "# Tools\\n\\nYou may call one or more functions to assist with the user query.\\n\\n<tools>" }}',
  '{%- for tool in tools %}{{- "\\n" }}{{- tool | tojson }}{%- endfor %}',
  '{{- "\\n</tools>\\n\\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\\n<tool_call>\\n{\\"name\\": <function-name>, \\"arguments\\": <args-json-object>}\\n</tool_call><|im_end|>\\n" }}',
  '{%- elif messages[0].role == "system" %}',
  '{{- "<|im_start|>system\\n" + messages[0].content + "<|im_end|>\\n" }}',
  '{%- endif %}',
  '{%- for message in messages %}',
  '{%- if message.role == "user" or (message.role == "system" and not loop.first) or (message.role == "assistant" and not message.tool_calls) %}',
  '{{- "<|im_start|>" + message.role + "\\n" + message.content + "<|im_end|>\\n" }}',
  '{%- elif message.role == "assistant" %}',
  '{{- "<|im_start|>assistant" }}',
  '{%- if message.content %}{{- "\\n" + message.content }}{%- endif %}',
  '{%- for tool_call in message.tool_calls %}',
  '{%- if tool_call.function is defined %}{%- set tool_call = tool_call.function %}{%- endif %}',
  '{{- "\\n<tool_call>\\n{\\"name\\": \\"" + tool_call.name + "\\", \\"arguments\\": " }}',
  '{%- if tool_call.arguments is string %}{{- tool_call.arguments }}{%- else %}{{- tool_call.arguments | tojson }}{%- endif %}',
  '{{- "}\\n</tool_call>" }}',
  '{%- endfor %}',
  '{{- "<|im_end|>\\n" }}',
  '{%- elif message.role == "tool" %}',
  '{%- if loop.index0 == 0 or messages[loop.index0 - 1].role != "tool" %}{{- "<|im_start|>user" }}{%- endif %}',
  '{{- "\\n<tool_response>\\n" + message.content + "\\n</tool_response>" }}',
  '{%- if loop.last or messages[loop.index0 + 1].role != "tool" %}{{- "<|im_end|>\\n" }}{%- endif %}',
  '{%- endif %}',
  '{%- endfor %}',
  '{%- if add_generation_prompt %}{{- "<|im_start|>assistant\\n" }}{%- endif %}',
].join('');

const alignment = 32;

/** Every dimension of the model, derived from its layers and width. */
interface Shape {
  readonly embeddingLength: number;
  readonly blockCount: number;
  readonly feedForwardLength: number;
  readonly headCount: number;
  readonly headCountKv: number;
  readonly headDimension: number;
}

/**
 * Width 64 has 4 heads of 16 (the tests' model); wider ones heads of 64 as small real models have.
 * Half as many key/value heads when the count is even (grouped-query attention), a feed-forward
 * twice the width.
 */
function shapeOf({ layers, width }: TinyGgufShape = { layers: 2, width: 64 }): Shape {
  if (!Number.isInteger(layers) || layers < 1 || !Number.isInteger(width) || width < 64 || width % 64 !== 0) {
    throw new Error(`a model shape needs whole layers >= 1 and a width that is a multiple of 64 (got ${layers} layers, width ${width})`);
  }
  const headCount = width === 64 ? 4 : width / 64;
  return {
    embeddingLength: width,
    blockCount: layers,
    feedForwardLength: 2 * width,
    headCount,
    headCountKv: headCount % 2 === 0 ? headCount / 2 : headCount,
    headDimension: width / headCount,
  };
}

/** Writes the model (once per content, under the OS temp dir) and returns its path. */
export function writeTinyGguf(options: TinyGgufOptions = {}): string {
  const bytes = buildTinyGguf(options);
  const hash = createHash('sha256').update(bytes).digest('hex').slice(0, 16);
  const directory = join(tmpdir(), 'model-platform-tiny-gguf');
  const path = join(directory, `tiny-llama-${hash}.gguf`);
  if (!existsSync(path)) {
    mkdirSync(directory, { recursive: true });
    // Written beside and renamed so that a concurrent test never reads a half-written file.
    const partial = `${path}.${process.pid}.partial`;
    writeFileSync(partial, bytes);
    renameSync(partial, path);
  }
  return path;
}

function buildTinyGguf(options: TinyGgufOptions = {}): Buffer {
  const chat = options.chat;
  const vocab = buildVocab(chat?.controlTokens ?? ['<|im_start|>', '<|im_end|>']);
  const random = mulberry32(options.seed ?? 1);
  const endIds =
    chat === undefined
      ? { endOfText: tinyGgufTokens.imEnd, endOfTurn: undefined, endOfMessage: undefined }
      : {
          endOfText: vocab.idOf(chat.endOfText),
          endOfTurn: chat.endOfTurn === undefined ? undefined : vocab.idOf(chat.endOfTurn),
          endOfMessage: chat.endOfMessage === undefined ? undefined : vocab.idOf(chat.endOfMessage),
        };
  const endTokens = [endIds.endOfText, endIds.endOfTurn, endIds.endOfMessage].filter((id) => id !== undefined);
  const steering =
    chat === undefined
      ? undefined
      : { offsets: logitOffsets(vocab, chat), followers: (chat.followers ?? []).map(([from, to]) => [vocab.idOf(from), vocab.idOf(to)] as const) };
  const shape = shapeOf(options.shape);
  const { embeddingLength, blockCount, feedForwardLength, headCount, headCountKv, headDimension } = shape;
  const tensors = buildTensors(shape, vocab, random, endTokens, steering);
  const endMetadata: [string, (writer: GgufWriter) => void][] = [];
  const { endOfTurn, endOfMessage } = endIds;
  if (endOfTurn !== undefined) endMetadata.push(['tokenizer.ggml.eot_token_id', (writer) => writer.u32Value(endOfTurn)]);
  if (endOfMessage !== undefined) endMetadata.push(['tokenizer.ggml.eom_token_id', (writer) => writer.u32Value(endOfMessage)]);

  const header = new GgufWriter();
  header.u32(0x46554747); // "GGUF" read as a little-endian uint32
  header.u32(3);
  header.u64(tensors.length);
  const metadata: [string, (writer: GgufWriter) => void][] = [
    ['general.architecture', (writer) => writer.stringValue('llama')],
    ['general.name', (writer) => writer.stringValue('tiny-random-llama')],
    ['general.alignment', (writer) => writer.u32Value(alignment)],
    ['llama.context_length', (writer) => writer.u32Value(options.contextLength ?? 4096)],
    ['llama.embedding_length', (writer) => writer.u32Value(embeddingLength)],
    ['llama.block_count', (writer) => writer.u32Value(blockCount)],
    ['llama.feed_forward_length', (writer) => writer.u32Value(feedForwardLength)],
    ['llama.attention.head_count', (writer) => writer.u32Value(headCount)],
    ['llama.attention.head_count_kv', (writer) => writer.u32Value(headCountKv)],
    ['llama.rope.dimension_count', (writer) => writer.u32Value(headDimension)],
    ['llama.rope.freq_base', (writer) => writer.f32Value(10000)],
    ['llama.attention.layer_norm_rms_epsilon', (writer) => writer.f32Value(1e-5)],
    ['llama.vocab_size', (writer) => writer.u32Value(vocab.tokens.length)],
    ['tokenizer.ggml.model', (writer) => writer.stringValue('llama')],
    ['tokenizer.ggml.tokens', (writer) => writer.stringArray(vocab.tokens)],
    ['tokenizer.ggml.scores', (writer) => writer.f32Array(vocab.scores)],
    ['tokenizer.ggml.token_type', (writer) => writer.i32Array(vocab.types)],
    ['tokenizer.ggml.unknown_token_id', (writer) => writer.u32Value(tinyGgufTokens.unknown)],
    ['tokenizer.ggml.bos_token_id', (writer) => writer.u32Value(tinyGgufTokens.bos)],
    // The turn's end (ChatML: <|im_end|>) is the end-of-generation token the model samples.
    ['tokenizer.ggml.eos_token_id', (writer) => writer.u32Value(endIds.endOfText)],
    ...endMetadata,
    ['tokenizer.ggml.add_bos_token', (writer) => writer.boolValue(false)],
    ['tokenizer.ggml.add_eos_token', (writer) => writer.boolValue(false)],
    ['tokenizer.chat_template', (writer) => writer.stringValue(chat?.template ?? tinyChatTemplate)],
  ];
  header.u64(metadata.length);
  for (const [key, writeValue] of metadata) {
    header.string(key);
    writeValue(header);
  }

  let offset = 0;
  for (const tensor of tensors) {
    header.string(tensor.name);
    header.u32(tensor.dimensions.length);
    for (const dimension of tensor.dimensions) header.u64(dimension);
    header.u32(0); // GGML_TYPE_F32
    header.u64(offset);
    offset += align(tensor.data.byteLength);
  }
  const headerBytes = header.toBuffer();
  const parts: Buffer[] = [headerBytes, Buffer.alloc(align(headerBytes.length) - headerBytes.length)];
  for (const tensor of tensors) {
    const data = Buffer.from(tensor.data.buffer, tensor.data.byteOffset, tensor.data.byteLength);
    parts.push(data, Buffer.alloc(align(data.length) - data.length));
  }
  return Buffer.concat(parts);
}

interface Vocab {
  readonly tokens: string[];
  readonly scores: number[];
  readonly types: number[];
  /** The id of a token; throws for a token the vocabulary lacks. */
  idOf(token: string): number;
}

/** llama.cpp token types. */
const tokenType = { normal: 1, unknown: 2, control: 3, byte: 6 } as const;

function buildVocab(controlTokens: readonly string[]): Vocab {
  const tokens: string[] = [];
  const scores: number[] = [];
  const types: number[] = [];
  const add = (token: string, type: number, score: number): void => {
    tokens.push(token);
    types.push(type);
    scores.push(score);
  };
  add('<unk>', tokenType.unknown, 0);
  add('<s>', tokenType.control, 0);
  add('</s>', tokenType.control, 0);
  for (const token of controlTokens) add(token, tokenType.control, 0);
  for (let byte = 0; byte < 256; byte += 1) {
    add(`<0x${byte.toString(16).toUpperCase().padStart(2, '0')}>`, tokenType.byte, 0);
  }
  // SentencePiece merges two adjacent pieces only when the merged piece exists, so every
  // multi-character piece is listed after the pieces it is made of; the score ranks merges.
  const pieces = [
    ...'▁abcdefghijklmnopqrstuvwxyz0123456789.,:;!?"\'{}[]()-_/=+*<>|#',
    '▁t',
    '▁a',
    '▁s',
    '▁i',
    '▁o',
    '▁w',
    'he',
    'in',
    'er',
    'an',
    're',
    'on',
    'th',
    '▁th',
    '▁the',
  ];
  pieces.forEach((piece, index) => add(piece, tokenType.normal, piece.length * 10 - index / 1000));
  const ids = new Map(tokens.map((token, id) => [token, id]));
  if (ids.size !== tokens.length) throw new Error('a control token repeats a token of the vocabulary');
  const idOf = (token: string): number => {
    const id = ids.get(token);
    if (id === undefined) throw new Error(`the tiny vocabulary has no token ${JSON.stringify(token)}`);
    return id;
  };
  return { tokens, scores, types, idOf };
}

/** The chat's logit offsets as one weight per token (0 for most). */
function logitOffsets(vocab: Vocab, chat: TinyGgufChat): Float32Array {
  const offsets = new Float32Array(vocab.tokens.length);
  if (chat.byteTokenOffset !== undefined) {
    vocab.types.forEach((type, id) => {
      if (type === tokenType.byte) offsets[id] = chat.byteTokenOffset ?? 0;
    });
  }
  for (const [token, offset] of chat.logitOffsets ?? []) offsets[vocab.idOf(token)] = offset;
  return offsets;
}

interface Tensor {
  readonly name: string;
  /** GGUF order: the first dimension is the contiguous one (a row's length). */
  readonly dimensions: readonly number[];
  readonly data: Float32Array;
}

/** Logit offsets by token id, and `[from, to]` token pairs where `to` follows `from`. */
interface Steering {
  readonly offsets: Float32Array;
  readonly followers: readonly (readonly [number, number])[];
}

/**
 * The weights. `endTokens` get a damped output row (see below). With `steering`, the last
 * embedding dimensions are reserved: no block writes to them, so after the final RMS norm they
 * hold what the current token embeds there. The last one is a constant for every token (a value
 * of about 4 after the norm), and a token's output weight on it is a fixed logit offset (a bias,
 * which the llama architecture lacks). Each one before it is set only by one token `from`, and
 * the output weight of `to` on it raises `to` right after `from`.
 */
function buildTensors(shape: Shape, vocab: Vocab, random: () => number, endTokens: readonly number[], steering?: Steering): Tensor[] {
  const { embeddingLength, blockCount, feedForwardLength, headCountKv, headDimension } = shape;
  const vocabSize = vocab.tokens.length;
  const uniform = (count: number, scale: number): Float32Array => {
    const data = new Float32Array(count);
    for (let index = 0; index < count; index += 1) data[index] = (random() * 2 - 1) * scale;
    return data;
  };
  const ones = (count: number): Float32Array => new Float32Array(count).fill(1);
  const matrix = (name: string, inputs: number, outputs: number, scale = 1 / Math.sqrt(inputs)): Tensor => ({
    name,
    dimensions: [inputs, outputs],
    data: uniform(inputs * outputs, scale),
  });
  const kvWidth = headDimension * headCountKv;
  const output = matrix('output.weight', embeddingLength, vocabSize, 0.5);
  // The end token's logit stays near 0 while the others spread around it: sampling still ends
  // answers now and then (and a grammar that allows only the end token ends them at once), but a
  // greedy answer never ends early, so tests of maxTokens and a full context do not depend on
  // which way the random weights tip on a given CPU.
  for (const endToken of endTokens) {
    const endRow = output.data.subarray(endToken * embeddingLength, (endToken + 1) * embeddingLength);
    endRow.forEach((value, index) => (endRow[index] = value * 0.05));
  }
  const tensors: Tensor[] = [
    { name: 'token_embd.weight', dimensions: [embeddingLength, vocabSize], data: uniform(embeddingLength * vocabSize, 1) },
    { name: 'output_norm.weight', dimensions: [embeddingLength], data: ones(embeddingLength) },
    output,
  ];
  for (let block = 0; block < blockCount; block += 1) {
    const prefix = `blk.${block}`;
    tensors.push(
      { name: `${prefix}.attn_norm.weight`, dimensions: [embeddingLength], data: ones(embeddingLength) },
      matrix(`${prefix}.attn_q.weight`, embeddingLength, embeddingLength),
      matrix(`${prefix}.attn_k.weight`, embeddingLength, kvWidth),
      matrix(`${prefix}.attn_v.weight`, embeddingLength, kvWidth),
      matrix(`${prefix}.attn_output.weight`, embeddingLength, embeddingLength),
      { name: `${prefix}.ffn_norm.weight`, dimensions: [embeddingLength], data: ones(embeddingLength) },
      matrix(`${prefix}.ffn_gate.weight`, embeddingLength, feedForwardLength),
      matrix(`${prefix}.ffn_up.weight`, embeddingLength, feedForwardLength),
      matrix(`${prefix}.ffn_down.weight`, feedForwardLength, embeddingLength),
    );
  }
  if (steering !== undefined) steerLogits(shape, tensors, steering);
  return tensors;
}

const carrier = 4;
/** A follower's output weight: about +12 logits right after its token. */
const followerWeight = 3;
const maxFollowers = 8;

function steerLogits({ embeddingLength, blockCount, feedForwardLength }: Shape, tensors: readonly Tensor[], steering: Steering): void {
  const offsetDimension = embeddingLength - 1;
  if (steering.followers.length > maxFollowers) throw new Error(`at most ${maxFollowers} follower pairs`);
  const tensor = (name: string): Tensor => {
    const found = tensors.find((candidate) => candidate.name === name);
    if (found === undefined) throw new Error(`no tensor ${name}`);
    return found;
  };
  const reserved = [offsetDimension, ...steering.followers.map((_pair, index) => offsetDimension - 1 - index)];
  const embeddings = tensor('token_embd.weight').data;
  const output = tensor('output.weight').data;
  const vocabSize = steering.offsets.length;
  for (let token = 0; token < vocabSize; token += 1) {
    embeddings[token * embeddingLength + offsetDimension] = carrier;
    for (const dimension of reserved.slice(1)) {
      embeddings[token * embeddingLength + dimension] = 0;
      output[token * embeddingLength + dimension] = 0;
    }
  }
  steering.followers.forEach(([from, to], index) => {
    const dimension = offsetDimension - 1 - index;
    embeddings[from * embeddingLength + dimension] = carrier;
    output[to * embeddingLength + dimension] = followerWeight;
  });
  for (let block = 0; block < blockCount; block += 1) {
    // Rows are outputs: zero the rows of the residual writes that land on a reserved dimension.
    for (const [name, inputs] of [
      [`blk.${block}.attn_output.weight`, embeddingLength],
      [`blk.${block}.ffn_down.weight`, feedForwardLength],
    ] as const) {
      for (const dimension of reserved) tensor(name).data.fill(0, dimension * inputs, (dimension + 1) * inputs);
    }
  }
  steering.offsets.forEach((offset, token) => (output[token * embeddingLength + offsetDimension] = offset));
}

function align(length: number): number {
  return Math.ceil(length / alignment) * alignment;
}

/** A small seeded PRNG (mulberry32): the same seed gives the same weights on every machine. */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

/** GGUF value types used here. */
const valueType = { uint32: 4, int32: 5, float32: 6, bool: 7, string: 8, array: 9 } as const;

/** Little-endian writer for GGUF's header: strings are a uint64 byte length then UTF-8 bytes. */
class GgufWriter {
  readonly #chunks: Buffer[] = [];

  u32(value: number): void {
    const buffer = Buffer.alloc(4);
    buffer.writeUInt32LE(value);
    this.#chunks.push(buffer);
  }

  u64(value: number): void {
    const buffer = Buffer.alloc(8);
    buffer.writeBigUInt64LE(BigInt(value));
    this.#chunks.push(buffer);
  }

  string(value: string): void {
    const bytes = Buffer.from(value, 'utf8');
    this.u64(bytes.length);
    this.#chunks.push(bytes);
  }

  u32Value(value: number): void {
    this.u32(valueType.uint32);
    this.u32(value);
  }

  f32Value(value: number): void {
    this.u32(valueType.float32);
    const buffer = Buffer.alloc(4);
    buffer.writeFloatLE(value);
    this.#chunks.push(buffer);
  }

  boolValue(value: boolean): void {
    this.u32(valueType.bool);
    this.#chunks.push(Buffer.from([value ? 1 : 0]));
  }

  stringValue(value: string): void {
    this.u32(valueType.string);
    this.string(value);
  }

  stringArray(values: readonly string[]): void {
    this.#arrayHeader(valueType.string, values.length);
    for (const value of values) this.string(value);
  }

  f32Array(values: readonly number[]): void {
    this.#arrayHeader(valueType.float32, values.length);
    const buffer = Buffer.alloc(values.length * 4);
    values.forEach((value, index) => buffer.writeFloatLE(value, index * 4));
    this.#chunks.push(buffer);
  }

  i32Array(values: readonly number[]): void {
    this.#arrayHeader(valueType.int32, values.length);
    const buffer = Buffer.alloc(values.length * 4);
    values.forEach((value, index) => buffer.writeInt32LE(value, index * 4));
    this.#chunks.push(buffer);
  }

  toBuffer(): Buffer {
    return Buffer.concat(this.#chunks);
  }

  #arrayHeader(elementType: number, length: number): void {
    this.u32(valueType.array);
    this.u32(elementType);
    this.u64(length);
  }
}
