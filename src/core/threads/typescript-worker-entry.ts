/**
 * A worker thread's entry for a TypeScript module. From the sources it registers the TypeScript
 * module hooks (bin/register-typescript.mjs, as the server's binary does) in the worker's own
 * thread, then imports `module`: Node 20 gives worker threads neither the main thread's hooks nor
 * its `--import` preloads. A data: URL module resolves only absolute URLs, hence the resolved ones.
 * From the compiled build (`npm run build`, where this file is JavaScript) the worker runs the
 * module's compiled `.js` beside it, with no hooks: the compiler rewrites import specifiers but
 * not the `new URL('./x.ts', …)` the callers name their workers with.
 */
export function typescriptWorkerEntry(module: URL): URL {
  if (!import.meta.url.endsWith('.ts')) return new URL(module.href.replace(/\.ts$/, '.js'));
  const hooks = new URL('../../../bin/register-typescript.mjs', import.meta.url);
  return new URL(`data:text/javascript,${encodeURIComponent(`import ${JSON.stringify(hooks.href)};\nawait import(${JSON.stringify(module.href)});\n`)}`);
}
