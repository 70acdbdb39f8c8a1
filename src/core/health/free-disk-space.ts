/** What a free-space probe needs of `statfs(2)`: blocks available to this process, and their size. */
interface DiskSpace {
  readonly bavail: number;
  readonly bsize: number;
}

export type ReadDiskSpace = (path: string) => Promise<DiskSpace>;

const mebibyte = 1024 * 1024;

/**
 * A readiness check on the disk that holds `path` (the data dir): fails while less than
 * `minFreeBytes` are available, so a load balancer stops sending uploads and generations to a node
 * that cannot store them, and passes again once space is freed. One `statfs` per probe: cheap, and
 * the readiness time limit covers a file system that hangs. The answer names the disk, never its path.
 */
export function freeDiskSpaceCheck(path: string, minFreeBytes: number, readDiskSpace: ReadDiskSpace): () => Promise<void> {
  return async () => {
    let space: DiskSpace;
    try {
      space = await readDiskSpace(path);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException | null)?.code;
      throw new Error(`the data disk cannot be examined (${typeof code === 'string' ? code : 'statfs failed'})`);
    }
    const freeBytes = space.bavail * space.bsize;
    if (freeBytes < minFreeBytes) {
      throw new Error(
        `the data disk has ${megabytes(freeBytes)} MB free, less than the minimum of ${megabytes(minFreeBytes)} MB ` + '(MODEL_PLATFORM_MIN_FREE_DISK_MB)',
      );
    }
  };
}

/** Whole MB, rounded down, so "0 MB free" means under one. */
function megabytes(bytes: number): number {
  return Math.floor(bytes / mebibyte);
}
