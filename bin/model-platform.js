#!/usr/bin/env node
// Runs the TypeScript sources directly (bin/typescript-hooks.mjs), so there is no build step to forget.
import { setFlagsFromString } from 'node:v8';

// V8's allocation-site pretenuring sometimes decides, early in a process's life, to allocate some
// per-request objects straight into the old space. They die young there: at c64 such a process
// then spent 6-7 ms per scavenge instead of ~2.3 and ran 8-10 mark-compacts per 30000 requests
// instead of 0-1, at ~25% fewer requests per second, for the rest of its life. It happened in 3
// of 5 starts; with pretenuring off, in none of 10 (BENCHMARKS.md "bench:chat", session 7). Set
// before any of the platform's code is loaded.
setFlagsFromString('--no-allocation-site-pretenuring');
await import('./register-typescript.mjs');
await import('../src/cli/main.ts');
