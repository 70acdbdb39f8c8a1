import { Type } from '@sinclair/typebox';
import type { RecentModelStats } from '../../core/metrics/recent-requests.ts';
import { rateLimitOnly } from '../../http/admission-hooks.ts';
import type { App, AppDependencies } from '../../http/app-types.ts';
import { responses } from '../shared/common.schema.ts';

const modelCounts = {
  model: Type.String({ description: 'A configured model, or "other" for names the catalog does not have.' }),
  requests: Type.Integer(),
  errors: Type.Integer({ description: 'Answered 5xx, or left unfinished.' }),
  refused: Type.Integer({ description: 'Answered 4xx (the request or the key limits).' }),
};

const ModelRequests = Type.Object({ ...modelCounts, mean_seconds: Type.Number(), max_seconds: Type.Number() });

const RequestSummary = Type.Object({
  object: Type.Literal('request_summary'),
  scope: Type.Literal('node', { description: 'last_hour and last_day: counted by this process since it started; each node counts its own.' }),
  last_hour: Type.Array(ModelRequests),
  last_day: Type.Array(ModelRequests),
  last_30_days: Type.Array(Type.Object(modelCounts), {
    description:
      'Every node: the model calls of the last 30 UTC days (today included) by model, from the hourly counts each node adds to the database every few seconds.',
  }),
});

const windows = { last_hour: 60, last_day: 24 * 60 } as const;

/**
 * GET /admin/requests: this node's model calls over the last hour and day by model (requests,
 * failures and response times) and every node's over the last 30 days (requests and failures),
 * what the console's overview shows beside the usage ledger, which records completed calls only.
 * Admin keys only.
 */
export function registerRequestAdminRoute(app: App, deps: Pick<AppDependencies, 'metrics' | 'requestCounts'>): void {
  app.get(
    '/requests',
    {
      schema: {
        operationId: 'summarizeRequests',
        tags: ['admin'],
        summary: "Model calls by model: this node's over the last hour and day (requests, failures, response times), every node's over 30 days.",
        response: responses(RequestSummary),
      },
      config: { admission: rateLimitOnly },
    },
    async () => {
      const now = Date.now();
      const window = (minutes: number) => deps.metrics.recentRequests.window(minutes, now).map(toModelRequests);
      return {
        object: 'request_summary' as const,
        scope: 'node' as const,
        last_hour: window(windows.last_hour),
        last_day: window(windows.last_day),
        last_30_days: await deps.requestCounts.lastDays(30, now),
      };
    },
  );
}

function toModelRequests(stats: RecentModelStats) {
  return {
    model: stats.model,
    requests: stats.requests,
    errors: stats.errors,
    refused: stats.refused,
    mean_seconds: stats.requests === 0 ? 0 : Math.round((stats.totalSeconds / stats.requests) * 1000) / 1000,
    max_seconds: Math.round(stats.maxSeconds * 1000) / 1000,
  };
}
