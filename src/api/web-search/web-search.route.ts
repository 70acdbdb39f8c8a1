import { engineNotAvailable } from '../../core/models/model-resolver.ts';
import type { App, AppDependencies } from '../../http/app-types.ts';
import { responses } from '../shared/common.schema.ts';
import { checkWebSearchRequest } from './web-search.checks.ts';
import { WebSearchRequest, WebSearchResponse } from './web-search.schema.ts';

export function registerWebSearchRoutes(app: App, deps: AppDependencies): void {
  app.post(
    '/web_search',
    {
      schema: {
        operationId: 'webSearch',
        tags: ['web-search'],
        summary: 'Web search with results shaped for language models.',
        body: WebSearchRequest,
        response: responses(WebSearchResponse),
      },
    },
    async (request) => {
      const body = request.body;
      checkWebSearchRequest(body);
      const entry = deps.models.resolve(body.search_engine, 'search');
      throw engineNotAvailable(body.search_engine, entry, 'search');
    },
  );
}
