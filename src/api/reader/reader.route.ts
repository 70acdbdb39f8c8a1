import { featureNotAvailable } from '../../core/models/model-resolver.ts';
import type { App, AppDependencies } from '../../http/app-types.ts';
import { responses } from '../shared/common.schema.ts';
import { checkReaderRequest } from './reader.checks.ts';
import { ReaderRequest, ReaderResponse } from './reader.schema.ts';

export function registerReaderRoutes(app: App, _deps: AppDependencies): void {
  app.post(
    '/reader',
    {
      schema: {
        operationId: 'readWebPage',
        tags: ['reader'],
        summary: 'Fetches a URL and returns its parsed content.',
        body: ReaderRequest,
        response: responses(ReaderResponse),
      },
    },
    async (request) => {
      checkReaderRequest(request.body);
      throw featureNotAvailable('The web reader');
    },
  );
}
