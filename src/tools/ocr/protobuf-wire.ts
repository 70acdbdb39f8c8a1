/**
 * Just enough of the protobuf wire format to read an ONNX model's graph and write changed nodes
 * back (no protobuf library is installed, and only a handful of message fields matter).
 */

/** One field of a message: its number, wire type and where its bytes lie in the buffer. */
export interface WireField {
  readonly number: number;
  readonly wireType: number;
  /** First byte of the field (its key). */
  readonly at: number;
  /** First byte of the payload (after the key and, for length-delimited fields, the length). */
  readonly start: number;
  readonly end: number;
  /** The value of a varint field. */
  readonly value: number;
}

const varintType = 0;
const fixed64Type = 1;
const lengthDelimitedType = 2;
const fixed32Type = 5;

export function readFields(bytes: Uint8Array, start = 0, end = bytes.length): WireField[] {
  const fields: WireField[] = [];
  let position = start;
  const varint = (): number => {
    let value = 0;
    let scale = 1;
    let byte: number;
    do {
      byte = bytes[position++] ?? 0;
      value += (byte & 0x7f) * scale;
      scale *= 128;
    } while ((byte & 0x80) !== 0 && position < end);
    return value;
  };
  while (position < end) {
    const at = position;
    const key = varint();
    const number = Math.floor(key / 8);
    const wireType = key % 8;
    if (wireType === varintType) {
      const value = varint();
      fields.push({ number, wireType, at, start: position, end: position, value });
      continue;
    }
    const length = wireType === lengthDelimitedType ? varint() : wireType === fixed64Type ? 8 : wireType === fixed32Type ? 4 : -1;
    if (length < 0 || position + length > end) throw new Error(`unreadable protobuf field ${number} (wire type ${wireType})`);
    fields.push({ number, wireType, at, start: position, end: position + length, value: 0 });
    position += length;
  }
  return fields;
}

const decoder = new TextDecoder();
const encoder = new TextEncoder();

export function fieldText(bytes: Uint8Array, field: WireField): string {
  return decoder.decode(bytes.subarray(field.start, field.end));
}

/** The payload of a fixed32 field as a float. */
export function fieldFloat(bytes: Uint8Array, field: WireField): number {
  return new DataView(bytes.buffer, bytes.byteOffset + field.start, 4).getFloat32(0, true);
}

function varintBytes(value: number): number[] {
  const out: number[] = [];
  let rest = value;
  while (rest > 127) {
    out.push((rest % 128) | 0x80);
    rest = Math.floor(rest / 128);
  }
  out.push(rest);
  return out;
}

export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((total, part) => total + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

export function lengthDelimited(number: number, payload: Uint8Array): Uint8Array {
  return concatBytes([new Uint8Array([...varintBytes(number * 8 + lengthDelimitedType), ...varintBytes(payload.length)]), payload]);
}

export function textField(number: number, text: string): Uint8Array {
  return lengthDelimited(number, encoder.encode(text));
}

export function varintField(number: number, value: number): Uint8Array {
  return new Uint8Array([...varintBytes(number * 8 + varintType), ...varintBytes(value)]);
}

export function floatField(number: number, value: number): Uint8Array {
  const key = varintBytes(number * 8 + fixed32Type);
  const out = new Uint8Array(key.length + 4);
  out.set(key);
  new DataView(out.buffer).setFloat32(key.length, value, true);
  return out;
}
