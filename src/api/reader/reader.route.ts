import { unitsBound } from '../../core/billing/usage-bound.ts';
import { admitLateCall } from '../../http/admission-hooks.ts';
import { abortOnDisconnect } from '../../http/client-abort.ts';
import type { App, AppDependencies } from '../../http/app-types.ts';
import { responses } from '../shared/common.schema.ts';
import { checkReaderRequest } from './reader.checks.ts';
import { readerModelName, toReadOptions, toReaderResponse } from './reader.mapper.ts';
import { ReaderRequest, ReaderResponse } from './reader.schema.ts';

export function registerReaderRoutes(app: App, deps: AppDependencies): void {
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
      // The reader is a tool, admitted and priced under its ledger name (billing.prices.web-reader,
      // a key's `models`) once the request is checked: a key with credit reserves one page read.
      config: { admission: { model: 'late' }, usage: 'reader' },
    },
    async (request, reply) => {
      const body = request.body;
      checkReaderRequest(body);
      await admitLateCall(request, readerModelName, () => unitsBound({ urlsRead: 1 }));
      const result = await deps.reader.read(body.url, toReadOptions(body, abortOnDisconnect(reply)));
      request.recordUsage({ model: readerModelName, units: { urlsRead: 1 } });
      return toReaderResponse(result, request.requestId);
    },
  );
}
