import type { RouteAdmission } from '../http/admission-hooks.ts';
import { layoutModelName } from './layout-parsing/layout-parsing.checks.ts';

const bodyField =
  (field: string): RouteAdmission['model'] =>
  (body) => {
    const value = body[field];
    return typeof value === 'string' ? value : undefined;
  };

const noModel: RouteAdmission = { model: 'none', charge: 'none' };

/**
 * How each route takes part in key admission (src/http/admission-hooks.ts), keyed
 * `METHOD path-inside-its-prefix`. Every authenticated route counts against the key's rate limit;
 * routes that name a model are model calls (allowed models, credit, quotas, concurrency).
 * Charges: `call` and `image` routes pay perCall (and perImage) when they complete; task
 * submissions pay through the credit their task holds (withCreditHolds); tokens are paid from
 * the usage records. A route missing here is admitted as one without a model, and the
 * route-table walk test fails until it is added.
 */
export const routeAdmissions: Readonly<Record<string, RouteAdmission>> = {
  'POST /chat/completions': { model: bodyField('model'), charge: 'call' },
  'POST /tokenizer': { model: bodyField('model'), charge: 'call' },
  'POST /images/generations': { model: bodyField('model'), charge: 'image' },
  'POST /async/images/generations': { model: bodyField('model'), charge: 'none' },
  'POST /videos/generations': { model: bodyField('model'), charge: 'none' },
  'GET /async-result/:id': noModel,
  // Listing models is not a call of one: only the rate limit applies.
  'GET /models': noModel,
  'GET /models/:id': noModel,
  'POST /web_search': { model: bodyField('search_engine'), charge: 'call' },
  // The reader is a tool, not a model: only the rate limit applies.
  'POST /reader': noModel,
  // The name the engines know: glm-ocr in any letter case is one model.
  'POST /layout_parsing': { model: (body, deps) => layoutModelName(String(body['model']), deps.config.models), charge: 'call' },
  // Multipart: the model is a form field the handler reads.
  'POST /audio/transcriptions': { model: 'late', charge: 'call' },
  'POST /files': noModel,
  'GET /files': noModel,
  'DELETE /files/:id': noModel,
  'GET /files/:id/content': noModel,
  // Agents are limited and priced by agent_id (a key's `models` lists the agents it may call);
  // the tasks an agent submits hold credit at their own model's prices.
  'POST ': { model: bodyField('agent_id'), charge: 'call' },
  'POST /conversation': noModel,
  'POST /async-result': noModel,
  'POST /keys': noModel,
  'GET /keys': noModel,
  'GET /keys/:id': noModel,
  'PATCH /keys/:id': noModel,
  'DELETE /keys/:id': noModel,
  'GET /usage': noModel,
};
