// Whether the compiled build (dist/, `npm run build`) may run: it exists and no source file
// changed after it was written. A checkout built once and edited since runs its sources instead,
// so neither `npm start` nor the tests that spawn the binary run code older than the sources.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * True when dist/ holds a build at least as new as every file under src/ (or there is no src/, as
 * in an image). `root` is the package's folder (default: the one above bin/). tsc writes every
 * output on each build, so the compiled CLI's time is the build's.
 */
export function compiledBuildIsCurrent(root = fileURLToPath(new URL('../', import.meta.url))) {
  let builtAt;
  try {
    builtAt = statSync(join(root, 'dist', 'cli', 'main.js')).mtimeMs;
  } catch {
    return false;
  }
  let sources;
  try {
    sources = readdirSync(join(root, 'src'), { recursive: true, withFileTypes: true });
  } catch {
    return true;
  }
  return sources.every((entry) => !entry.isFile() || statSync(join(entry.parentPath ?? entry.path, entry.name)).mtimeMs <= builtAt);
}
