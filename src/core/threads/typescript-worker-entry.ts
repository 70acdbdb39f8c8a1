/**
 * A worker thread's entry for a TypeScript module: it registers the TypeScript module hooks
 * (bin/register-typescript.mjs, as the server's binary does) in the worker's own thread, then
 * imports `module`. Node 20 gives worker threads neither the main thread's hooks nor its
 * `--import` preloads. A data: URL module resolves only absolute URLs, hence the resolved ones.
 */
export function typescriptWorkerEntry(module: URL): URL {
  const hooks = new URL('../../../bin/register-typescript.mjs', import.meta.url);
  return new URL(`data:text/javascript,${encodeURIComponent(`import ${JSON.stringify(hooks.href)};\nawait import(${JSON.stringify(module.href)});\n`)}`);
}
