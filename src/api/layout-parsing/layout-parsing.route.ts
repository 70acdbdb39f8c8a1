import { randomUUID } from 'node:crypto';
import { abortOnDisconnect } from '../../http/client-abort.ts';
import { setServedByHeaders } from '../../http/served-by-headers.ts';
import type { App, AppDependencies } from '../../http/app-types.ts';
import { GuardedFetcher } from '../../tools/fetch/guarded-fetcher.ts';
import { SsrfGuard } from '../../tools/fetch/ssrf-guard.ts';
import { requestOrigin } from '../blobs/request-origin.ts';
import { responses } from '../shared/common.schema.ts';
import { readLayoutDocument } from './layout-document.ts';
import { checkLayoutParsingRequest, layoutModelName } from './layout-parsing.checks.ts';
import { layoutBound } from '../../core/billing/usage-bound.ts';
import { toLayoutResponse } from './layout-parsing.mapper.ts';
import { LayoutParsingRequest, LayoutParsingResponse, maxPdfBytes } from './layout-parsing.schema.ts';

/** Room for the largest PDF as base64 (4 characters per 3 bytes) plus the other fields. */
const bodyLimit = Math.ceil((maxPdfBytes * 4) / 3) + 1024 * 1024;

export function registerLayoutParsingRoutes(app: App, deps: AppDependencies): void {
  // Documents given as URLs are fetched like every URL the server fetches for a client: guarded.
  const fetcher = new GuardedFetcher({
    guard: new SsrfGuard({ allow: deps.config.fetch?.allow ?? [] }),
    maxBytes: maxPdfBytes,
    userAgent: 'model-platform (layout parsing)',
  });
  app.addHook('onClose', () => fetcher.close());

  app.post(
    '/layout_parsing',
    {
      bodyLimit,
      schema: {
        operationId: 'parseLayout',
        tags: ['layout-parsing'],
        summary: 'Layout parsing (OCR) of an image or PDF document into Markdown and layout elements.',
        body: LayoutParsingRequest,
        response: responses(LayoutParsingResponse),
      },
      config: {
        // The name the engines know: glm-ocr in any letter case is one model.
        admission: {
          model: (fields) => layoutModelName(String(fields['model']), deps.config.models),
          bound: (fields) => layoutBound(fields['start_page_id'], fields['end_page_id']),
        },
        usage: 'layout_parsing',
      },
    },
    async (request, reply) => {
      const body = request.body;
      checkLayoutParsingRequest(body);
      const model = layoutModelName(body.model, deps.config.models);
      // The engine first: a model nothing serves is refused (1211 / 1221) before any download.
      const parser = deps.backends.capability(model, 'layout');
      const signal = abortOnDisconnect(reply);
      const document = await readLayoutDocument(body.file, fetcher, signal);
      const layoutRequest = {
        model,
        document,
        ...(body.start_page_id === undefined ? {} : { startPage: body.start_page_id }),
        ...(body.end_page_id === undefined ? {} : { endPage: body.end_page_id }),
        needVisualization: body.need_layout_visualization === true,
        signal,
      };
      const result = await parser.parse(layoutRequest);
      setServedByHeaders(reply, signal);
      const answer = await toLayoutResponse(result, {
        id: randomUUID(),
        created: Math.floor(Date.now() / 1000),
        model: body.model,
        requestId: request.requestId,
        returnCropImages: body.return_crop_images === true,
        blobs: deps.blobs,
        origin: requestOrigin(request),
      });
      request.recordUsage({
        // The name the engines know: glm-ocr in any letter case counts as one model.
        model,
        promptTokens: result.usage.promptTokens,
        completionTokens: result.usage.completionTokens,
        units: { pages: answer.data_info.num_pages },
      });
      return answer;
    },
  );
}
