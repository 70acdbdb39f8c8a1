import type { BackendFactory } from '../../core/backends/backend.ts';
import type { LocalIndexSettings } from './local-index-settings.ts';
import { LocalIndexSearcher } from './local-index-searcher.ts';

/** Web search on the platform's own index: no configuration, nothing to reach over the network. */
export const createLocalIndexBackend: BackendFactory<LocalIndexSettings> = ({ resources }) => ({
  search: new LocalIndexSearcher(resources.searchIndex),
  // The index lives in the platform's own database, which /readyz checks.
  probe: async (signal) => {
    signal.throwIfAborted();
    return { detail: 'in process' };
  },
});
