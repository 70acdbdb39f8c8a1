import { callUsage } from '../../core/usage/call-usage.ts';
import { abortOnDisconnect } from '../../http/client-abort.ts';
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
    },
    async (request, reply) => {
      const body = request.body;
      checkWebSearchRequest(body);
      const searcher = deps.engines.search(body.search_engine);
      const answer = await searcher.search(toSearchQuery(body, abortOnDisconnect(reply)));
      deps.usage.record(
        callUsage({ keyId: request.apiKey?.id ?? '', model: body.search_engine, endpoint: 'web_search', requestId: request.requestId, units: { searches: 1 } }),
      );
      const header = { id: generateRequestId(), created: Math.floor(Date.now() / 1000), requestId: request.requestId };
      return toWebSearchResponse(header, answer, body.search_intent === true);
    },
  );
}
