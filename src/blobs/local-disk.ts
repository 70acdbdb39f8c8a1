import { createWriteStream } from 'node:fs';
import { statfs } from 'node:fs/promises';
import type { Writable } from 'node:stream';
import type { ReadDiskSpace } from '../core/health/free-disk-space.ts';

/**
 * The local disk as the platform writes to it: the one way the local blob store writes bytes, and
 * the free-space reading /readyz takes. Tests put a disk that fills up in its place (a real full
 * disk needs a mount, which containers often refuse).
 */
export interface LocalDisk {
  /** A stream that creates (or truncates) the file at `path` and writes to it. */
  readonly createWriteStream: (path: string) => Writable;
  /** Space available on the file system that holds `path`. */
  readonly readSpace: ReadDiskSpace;
}

export const nodeLocalDisk: LocalDisk = {
  createWriteStream: (path) => createWriteStream(path),
  readSpace: (path) => statfs(path),
};
