import type { BackendFactory } from '../../core/engines/backend.ts';
import { LocalIndexSearcher } from './local-index-searcher.ts';

/** Web search on the platform's own index: no configuration, nothing to reach over the network. */
export const createLocalIndexBackend: BackendFactory = ({ resources }) => ({
  search: new LocalIndexSearcher(resources.searchIndex),
});
