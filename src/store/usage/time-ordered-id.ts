import { randomFillSync } from 'node:crypto';

/** Random bytes drawn 4 KB at a time: one crypto call per 512 ids, not per id. */
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;

function randomHex(bytes: number): string {
  if (poolOffset + bytes > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const hex = pool.toString('hex', poolOffset, poolOffset + bytes);
  poolOffset += bytes;
  return hex;
}

/**
 * A UUID version 7 (RFC 9562): the creation time in ms first, then 74 random bits. Ledger rows get
 * these instead of random UUIDs because their primary key index then grows at its right edge: a
 * batch of rows fills a few pages instead of touching one page per row across the whole index
 * (SQLite's and PostgreSQL's B-trees alike).
 */
export function timeOrderedId(createdAt: number): string {
  const time = Math.max(0, Math.floor(createdAt)).toString(16).padStart(12, '0').slice(-12);
  const random = randomHex(10);
  // Version nibble 7, then the variant bits 10 on the first random byte of the last groups.
  const variant = ((parseInt(random.slice(3, 5), 16) & 0x3f) | 0x80).toString(16).padStart(2, '0');
  return `${time.slice(0, 8)}-${time.slice(8)}-7${random.slice(0, 3)}-${variant}${random.slice(5, 7)}-${random.slice(7, 19)}`;
}
