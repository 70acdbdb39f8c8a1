#!/usr/bin/env node
// Runs the TypeScript sources directly (bin/typescript-hooks.mjs), so there is no build step to forget.
await import('./register-typescript.mjs');
await import('../src/cli/main.ts');
