import { invalidField } from '../../core/errors/api-error.ts';
import type { WebSearchRequest } from './web-search.schema.ts';

/** Engines that return results only in pages of ten (docs/wire.md §1.2). */
const tenStepEngines: readonly string[] = ['search_pro_sogou'];

/** The web search rules JSON Schema cannot state. */
export function checkWebSearchRequest(body: WebSearchRequest): void {
  if (body.search_query.trim() === '') {
    throw invalidField('search_query', 'must not be blank');
  }
  if (body.count !== undefined && tenStepEngines.includes(body.search_engine) && body.count % 10 !== 0) {
    throw invalidField('count', `must be 10, 20, 30, 40 or 50 for ${body.search_engine}`);
  }
}
