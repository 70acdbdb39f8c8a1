import type { FastifyRequest } from 'fastify';
import { ApiError, notFound } from '../../core/errors/api-error.ts';
import { scopeOf } from '../../core/limits/key-policy.ts';
import { rateLimitOnly } from '../../http/admission-hooks.ts';
import type { App, AppDependencies } from '../../http/app-types.ts';
import { responses } from '../shared/common.schema.ts';
import { toKeyObject, toUsageItem, toUsageQuery } from './admin.mapper.ts';
import { registerKnowledgeAdminRoutes } from './knowledge-admin.route.ts';
import { registerDeploymentAdminRoutes } from './deployments-admin.route.ts';
import { CreatedKey, CreateKeyRequest, KeyIdParams, KeyList, KeyObject, RevokedKey, UpdatePolicyRequest, UsageQuery, UsageReport } from './admin.schema.ts';

/**
 * The admin API under /admin: keys and their policies, and usage reports. Admin-scoped keys only
 * (policy `scope: admin`; the first key a platform creates is one); any other key gets 1220. The
 * CLI's `keys` commands run the same KeyAdmin operations.
 */
export function registerAdminRoutes(app: App, deps: AppDependencies): void {
  app.addHook('preHandler', async (request: FastifyRequest) => {
    if (scopeOf(request.apiKey?.policy) !== 'admin') {
      throw new ApiError('1220', 'This API key has no permission for the admin API: it needs the admin scope.');
    }
  });
  const tags = ['admin'];
  // Operators' routes call no model: only the key's rate limit applies.
  const config = { admission: rateLimitOnly };

  app.post(
    '/keys',
    {
      schema: {
        operationId: 'createKey',
        tags,
        summary: 'Creates an API key, with an optional policy; the secret is shown only here.',
        body: CreateKeyRequest,
        response: responses(CreatedKey),
      },
      config,
    },
    async (request) => {
      const created = await deps.keyAdmin.create({ name: request.body.name, policy: request.body.policy });
      return { ...toKeyObject(created.view), key: created.key };
    },
  );

  app.get(
    '/keys',
    { schema: { operationId: 'listKeys', tags, summary: 'Lists API keys with their policies (never their secrets).', response: responses(KeyList) }, config },
    async () => ({ object: 'list' as const, data: (await deps.keyAdmin.list()).map(toKeyObject) }),
  );

  app.get(
    '/keys/:id',
    {
      schema: { operationId: 'getKey', tags, summary: 'One API key with its policy and credit balance.', params: KeyIdParams, response: responses(KeyObject) },
      config,
    },
    async (request) => {
      const view = await deps.keyAdmin.get(request.params.id);
      if (view === undefined) throw notFound('API key', request.params.id);
      return toKeyObject(view);
    },
  );

  app.patch(
    '/keys/:id',
    {
      schema: {
        operationId: 'updateKeyPolicy',
        tags,
        summary: "Replaces a key's policy; credit.balance, when given, sets the balance. Other nodes apply it within a second.",
        params: KeyIdParams,
        body: UpdatePolicyRequest,
        response: responses(KeyObject),
      },
      config,
    },
    async (request) => {
      const view = await deps.keyAdmin.updatePolicy(request.params.id, request.body.policy);
      if (view === undefined) throw notFound('API key', request.params.id);
      return toKeyObject(view);
    },
  );

  app.delete(
    '/keys/:id',
    { schema: { operationId: 'revokeKey', tags, summary: 'Revokes an API key at once.', params: KeyIdParams, response: responses(RevokedKey) }, config },
    async (request) => {
      const { id } = request.params;
      if (!(await deps.keyAdmin.revoke(id))) throw notFound('Active API key', id);
      return { id, object: 'api_key' as const, revoked: true as const };
    },
  );

  app.get(
    '/usage',
    {
      schema: {
        operationId: 'getUsage',
        tags,
        summary: 'Calls and tokens by key, model and UTC day, from the usage ledger.',
        querystring: UsageQuery,
        response: responses(UsageReport),
      },
      config,
    },
    async (request) => {
      const rows = await deps.keyAdmin.usage(toUsageQuery(request.query, Date.now()));
      return { object: 'list' as const, data: rows.map(toUsageItem) };
    },
  );

  registerKnowledgeAdminRoutes(app, deps);
  registerDeploymentAdminRoutes(app, deps);
}
