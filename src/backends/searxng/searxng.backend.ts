import type { BackendFactory } from '../../core/backends/backend.ts';
import type { SearxngSettings } from './searxng-settings.ts';
import { EngineFailure } from '../../core/errors/engine-failure.ts';
import { defaultMaxResponseBytes } from '../openai-compatible/engine-request.ts';
import { SearxngSearcher } from './searxng-searcher.ts';
import { probeSearxng } from './searxng-probe.ts';

/** SearXNG answers within its own engines' timeouts (a few seconds); this bounds a stuck instance. */
const defaultSearxngTimeoutMs = 20_000;

/** Web search through a SearXNG instance (`baseUrl`, its JSON format enabled). */
export const createSearxngBackend: BackendFactory<SearxngSettings> = ({ modelName, entry }) => {
  if (entry.baseUrl === undefined) {
    throw new EngineFailure(
      'misconfigured',
      modelName,
      `Search engine '${modelName}' uses backend searxng but has no baseUrl; add the instance's address, for example baseUrl: http://searxng:8080.`,
    );
  }
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
