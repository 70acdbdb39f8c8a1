import type { ModelEntry } from '../config/config.schema.ts';
import { platformModels } from './platform-models.ts';

/**
 * Models that work with no configuration, served by in-process engines (docs/architecture.md, "Composition"):
 * web search on the local index and layout parsing on PaddleOCR. The config file's catalog
 * overrides any of them.
 */
export const zeroConfigModels: Readonly<Record<string, ModelEntry>> = {
  ...Object.fromEntries(platformModels.search.map((name) => [name, { backend: 'local-index' } satisfies ModelEntry])),
  'glm-ocr': { backend: 'paddle-ocr' },
};
