import { unitsBound } from '../../core/billing/usage-bound.ts';
import { modelInBody } from '../../http/admission-hooks.ts';
import { abortOnDisconnect } from '../../http/client-abort.ts';
import { setServedByHeaders } from '../../http/served-by-headers.ts';
import type { App, AppDependencies } from '../../http/app-types.ts';
import { generateRequestId } from '../../http/request-id.ts';
import { responses } from '../shared/common.schema.ts';
import { checkWebSearchRequest } from './web-search.checks.ts';
import { toSearchQuery, toWebSearchResponse } from './web-search.mapper.ts';
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
      config: { admission: modelInBody('search_engine', () => unitsBound({ searches: 1 })), usage: 'web_search' },
    },
    async (request, reply) => {
      const body = request.body;
      checkWebSearchRequest(body);
      const searcher = deps.backends.capability(body.search_engine, 'search');
      const query = toSearchQuery(body, abortOnDisconnect(reply));
      const answer = await searcher.search(query);
      setServedByHeaders(reply, query.signal);
      request.recordUsage({ model: body.search_engine, units: { searches: 1 } });
      const header = { id: generateRequestId(), created: Math.floor(Date.now() / 1000), requestId: request.requestId };
      return toWebSearchResponse(header, answer, body.search_intent === true);
    },
  );
}
