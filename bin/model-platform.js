#!/usr/bin/env node
// Runs the TypeScript sources directly (bin/typescript-hooks.mjs), so there is no build step to forget.
import { register } from 'node:module';

register('./typescript-hooks.mjs', import.meta.url);
// Stack traces name the .ts files and lines.
process.setSourceMapsEnabled(true);
await import('../src/cli/main.ts');
