import { randomFillSync } from 'node:crypto';

/** Random bytes drawn 4 KB at a time: one crypto call per 409 ids, not per id. */
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;

/** An id's 16 bytes, then its text: written in place, so an id makes one string and nothing else. */
const idBytes = Buffer.alloc(16);
const idText = Buffer.alloc(36);
const hexDigits = Buffer.from('0123456789abcdef', 'latin1');
/** Where the dashes go in the text (8-4-4-4-12). */
const dashAfterByte = new Set([3, 5, 7, 9]);

/** Ten random bytes into idBytes from byte 6 on. */
function fillRandom(): void {
  if (poolOffset + 10 > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  pool.copy(idBytes, 6, poolOffset, poolOffset + 10);
  poolOffset += 10;
}

/**
 * A UUID version 7 (RFC 9562): the creation time in ms first, then 74 random bits. Ledger rows get
 * these instead of random UUIDs because their primary key index then grows at its right edge: a
 * batch of rows fills a few pages instead of touching one page per row across the whole index
 * (SQLite's and PostgreSQL's B-trees alike).
 */
export function timeOrderedId(createdAt: number): string {
  // The low 48 bits of the time in ms, big-endian.
  idBytes.writeUIntBE(Math.max(0, Math.floor(createdAt)) % 2 ** 48, 0, 6);
  fillRandom();
  // Version nibble 7, then the variant bits 10.
  idBytes[6] = 0x70 | ((idBytes[6] ?? 0) & 0x0f);
  idBytes[8] = 0x80 | ((idBytes[8] ?? 0) & 0x3f);
  let at = 0;
  for (let index = 0; index < 16; index += 1) {
    const byte = idBytes[index] ?? 0;
    idText[at] = hexDigits[byte >> 4] ?? 0;
    idText[at + 1] = hexDigits[byte & 0x0f] ?? 0;
    at += 2;
    if (dashAfterByte.has(index)) {
      idText[at] = 0x2d;
      at += 1;
    }
  }
  return idText.toString('latin1');
}
