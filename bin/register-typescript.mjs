// Lets Node import the TypeScript sources (bin/typescript-hooks.mjs) in this thread: imported by
// the binary and by the OCR worker threads, or preloaded (`node --import ./bin/register-typescript.mjs`).
import { register } from 'node:module';

register('./typescript-hooks.mjs', import.meta.url);
// Stack traces name the .ts files and lines.
process.setSourceMapsEnabled(true);
