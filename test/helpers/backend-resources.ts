import type { BackendResources } from '../../src/core/backends/backend.ts';

/** Resources for backend tests whose engine needs none: any use is a test bug and says so. */
export const unusedResources: BackendResources = new Proxy({} as BackendResources, {
  get(_target, name) {
    throw new Error(`this test's backend was not expected to use the platform's ${String(name)}`);
  },
});
