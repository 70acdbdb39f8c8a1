#!/usr/bin/env node
// Runs the compiled JavaScript (dist/, written by `npm run build`) when it is current; a checkout
// that was never built, or whose sources changed since, runs the TypeScript sources through module
// hooks (bin/typescript-hooks.mjs) instead.
import { compiledBuildIsCurrent } from './compiled-build.mjs';

if (compiledBuildIsCurrent()) {
  await import('../dist/cli/main.js');
} else {
  await import('./register-typescript.mjs');
  await import('../src/cli/main.ts');
}
