// Module hooks that run the TypeScript sources as they are (node:module register): each .ts file is
// stripped of its types by esbuild when first imported, with an inline source map.
//
// Why not tsx's loader at run time: tsx transpiles with esbuild's keepNames, which wraps every
// function the code creates in a `__name(fn, "…")` call (an Object.defineProperty on the function);
// on the request path, where closures are made per request, that cost ~9% of a chat call's CPU
// (BENCHMARKS.md "bench:chat"). The sources never rename functions, so their names are already
// what keepNames keeps. Tests and scripts still run under tsx.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { transform } from 'esbuild';

/** The tsconfig.json settings that change emitted code (class fields as defined, imports as written). */
const tsconfigRaw = { compilerOptions: { target: 'ES2023', useDefineForClassFields: true, verbatimModuleSyntax: true } };
const target = `node${process.versions.node}`;

export async function load(url, context, nextLoad) {
  if (!url.startsWith('file:') || !url.endsWith('.ts')) return nextLoad(url, context);
  const path = fileURLToPath(url);
  const { code } = await transform(await readFile(path, 'utf8'), { loader: 'ts', format: 'esm', target, sourcemap: 'inline', sourcefile: path, tsconfigRaw });
  return { format: 'module', source: code, shortCircuit: true };
}
