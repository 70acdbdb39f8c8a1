import { notFound } from '../../core/errors/api-error.ts';
import { rateLimitOnly } from '../../http/admission-hooks.ts';
import type { App, AppDependencies } from '../../http/app-types.ts';
import { responses } from '../shared/common.schema.ts';
import { callableModels, toModelObject } from './models.mapper.ts';
import { ModelIdParams, ModelList, ModelObject } from './models.schema.ts';

/**
 * The models this server serves now (the config file's and those that need no configuration) that
 * the calling key may call, in the OpenAI list shape. A model the key may not call answers 404
 * exactly like one that is not served, so the list of another key's models is not revealed.
 */
export function registerModelRoutes(app: App, deps: AppDependencies): void {
  // The catalog is fixed for the life of the process, so its start is when each model became servable.
  const created = Math.floor(Date.now() / 1000);

  app.get(
    '/models',
    {
      schema: {
        operationId: 'listModels',
        tags: ['models'],
        summary: 'Lists the models this key may call on this server (OpenAI list shape).',
        response: responses(ModelList),
      },
      // Listing models is not a call of one: only the rate limit applies.
      config: { admission: rateLimitOnly },
    },
    async (request) => ({
      object: 'list' as const,
      data: callableModels(deps.models.servedModels(), request.apiKey?.policy).map((name) => toModelObject(name, created)),
    }),
  );

  app.get(
    '/models/:id',
    {
      schema: {
        operationId: 'getModel',
        tags: ['models'],
        summary: 'One model this key may call; 404 for a model not served or not allowed to the key.',
        params: ModelIdParams,
        response: responses(ModelObject),
      },
      config: { admission: rateLimitOnly },
    },
    async (request) => {
      const { id } = request.params;
      if (!callableModels(deps.models.servedModels(), request.apiKey?.policy).includes(id)) throw notFound('Model', id);
      return toModelObject(id, created);
    },
  );
}
