import { engineNotAvailable } from '../../core/models/model-resolver.ts';
import type { App, AppDependencies } from '../../http/app-types.ts';
import { responses } from '../shared/common.schema.ts';
import { checkTokenizerRequest } from './tokenizer.checks.ts';
import { TokenizerRequest, TokenizerResponse } from './tokenizer.schema.ts';

export function registerTokenizerRoutes(app: App, deps: AppDependencies): void {
  app.post(
    '/tokenizer',
    {
      // Multimodal messages may carry base64 images, as on chat completions.
      bodyLimit: 32 * 1024 * 1024,
      schema: {
        operationId: 'countTokens',
        tags: ['tokenizer'],
        summary: 'Counts the tokens of a prompt (messages and function tools).',
        body: TokenizerRequest,
        response: responses(TokenizerResponse),
      },
    },
    async (request) => {
      const body = request.body;
      checkTokenizerRequest(body);
      const entry = deps.models.resolve(body.model, 'tokenize');
      throw engineNotAvailable(body.model, entry, 'tokenize');
    },
  );
}
