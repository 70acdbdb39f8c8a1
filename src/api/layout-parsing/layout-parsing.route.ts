import { engineNotAvailable } from '../../core/models/model-resolver.ts';
import type { App, AppDependencies } from '../../http/app-types.ts';
import { responses } from '../shared/common.schema.ts';
import { checkLayoutParsingRequest, layoutModelName } from './layout-parsing.checks.ts';
import { LayoutParsingRequest, LayoutParsingResponse, maxPdfBytes } from './layout-parsing.schema.ts';

/** Room for the largest PDF as base64 (4 characters per 3 bytes) plus the other fields. */
const bodyLimit = Math.ceil((maxPdfBytes * 4) / 3) + 1024 * 1024;

export function registerLayoutParsingRoutes(app: App, deps: AppDependencies): void {
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
    },
    async (request) => {
      const body = request.body;
      checkLayoutParsingRequest(body);
      const model = layoutModelName(body.model, deps.config.models);
      const entry = deps.models.resolve(model, 'layout');
      throw engineNotAvailable(model, entry, 'layout');
    },
  );
}
