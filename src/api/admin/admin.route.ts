import type { FastifyRequest } from 'fastify';
import { ApiError, notFound } from '../../core/errors/api-error.ts';
import { currencyOf } from '../../core/billing/price-table.ts';
import { scopeOf } from '../../core/limits/key-policy.ts';
import { rateLimitOnly } from '../../http/admission-hooks.ts';
import type { App, AppDependencies } from '../../http/app-types.ts';
import { responses } from '../shared/common.schema.ts';
import { toKeyObject, toUsageQuery, toUsageReport } from './admin.mapper.ts';
import { registerKnowledgeAdminRoutes } from './knowledge-admin.route.ts';
import { registerDeploymentAdminRoutes } from './deployments-admin.route.ts';
import { registerModelFileAdminRoutes } from './model-files-admin.route.ts';
import { registerRequestAdminRoute } from './requests-admin.route.ts';
import { registerTaskAdminRoutes } from './tasks-admin.route.ts';
import { registerUsageExportAdminRoute } from './usage-export-admin.route.ts';
import {
  CreatedKey,
  CreateKeyRequest,
  KeyIdParams,
  KeyList,
  KeyObject,
  RevokedKey,
  TopUpRequest,
  UpdatePolicyRequest,
  UsageQuery,
  UsageReport,
} from './admin.schema.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** An /admin read any key may make, answered with that key's own rows only. */
    ownRowsForUsers?: boolean;
  }
}

/**
 * The admin API under /admin: keys and their policies, top-ups and usage reports. Admin-scoped
 * keys only (policy `scope: admin`; the first key a platform creates is one); any other key gets
 * 1220, except on reads marked `ownRowsForUsers` (usage, tasks), which answer it with its own rows. The
 * CLI's `keys` commands run the same KeyAdmin operations.
 */
export function registerAdminRoutes(app: App, deps: AppDependencies): void {
  app.addHook('preHandler', async (request: FastifyRequest) => {
    // Only the route's own flag counts: a value reached through a polluted prototype never opens a route.
    const config = request.routeOptions.config;
    const ownRows = Object.hasOwn(config, 'ownRowsForUsers') && config.ownRowsForUsers === true;
    if (!ownRows && scopeOf(request.apiKey?.policy) !== 'admin') {
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

  app.post(
    '/keys/:id/top-up',
    {
      schema: {
        operationId: 'topUpKeyCredit',
        tags,
        summary: "Adds to a key's prepaid credit in one step (calls running meanwhile keep their reservations).",
        params: KeyIdParams,
        body: TopUpRequest,
        response: responses(KeyObject),
      },
      config,
    },
    async (request) => {
      const view = await deps.keyAdmin.topUp(request.params.id, request.body.amount_micros);
      if (view === undefined) throw notFound('API key', request.params.id);
      return toKeyObject(view);
    },
  );

  app.get(
    '/usage',
    {
      schema: {
        operationId: 'getUsage',
        tags,
        summary: 'Calls, tokens and spend by UTC day, key, model and endpoint, with totals; a non-admin key sees its own rows only.',
        querystring: UsageQuery,
        response: responses(UsageReport),
      },
      config: { ...config, ownRowsForUsers: true },
    },
    async (request) => {
      const query = request.query;
      const ownKeyId = request.apiKey?.id ?? '';
      const admin = scopeOf(request.apiKey?.policy) === 'admin';
      if (!admin && query.key_id !== undefined && query.key_id !== ownKeyId) {
        throw new ApiError('403', 'This API key may read only its own usage: leave key_id out, or give its own id.');
      }
      const rows = await deps.keyAdmin.usage(toUsageQuery(admin ? query : { ...query, key_id: ownKeyId }, Date.now()));
      return toUsageReport(rows, currencyOf(deps.config.billing));
    },
  );

  registerKnowledgeAdminRoutes(app, deps);
  registerDeploymentAdminRoutes(app, deps);
  registerModelFileAdminRoutes(app, deps);
  registerTaskAdminRoutes(app, deps);
  registerUsageExportAdminRoute(app, deps);
  registerRequestAdminRoute(app, deps);
}
