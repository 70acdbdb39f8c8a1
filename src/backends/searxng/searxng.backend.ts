import type { BackendFactory } from '../../core/backends/backend.ts';
import type { SearxngSettings } from './searxng-settings.ts';
import { defaultMaxResponseBytes } from '../engine-http/engine-request.ts';
import { SearxngSearcher } from './searxng-searcher.ts';
import { probeSearxng } from './searxng-probe.ts';

/** SearXNG answers within its own engines' timeouts (a few seconds); this bounds a stuck instance. */
const defaultSearxngTimeoutMs = 20_000;

/** Web search through a SearXNG instance (`baseUrl`, its JSON format enabled). */
export const createSearxngBackend: BackendFactory<SearxngSettings> = ({ modelName, entry }) => {
  const baseUrl = entry.baseUrl.replace(/\/+$/, '');
  return {
    search: new SearxngSearcher({
      modelName,
      baseUrl,
      apiKey: entry.apiKey,
      timeoutMs: entry.timeoutMs ?? defaultSearxngTimeoutMs,
      maxResponseBytes: entry.maxResponseBytes ?? defaultMaxResponseBytes,
    }),
    probe: (signal) => probeSearxng(baseUrl, entry.apiKey, signal),
  };
};
