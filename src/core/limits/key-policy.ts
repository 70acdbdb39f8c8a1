import { Type, type Static } from '@sinclair/typebox';
import { ModelPriceSchema } from '../billing/model-price.ts';
import { nullPrototypeRecord } from '../objects/null-prototype-record.ts';

const Count = (description: string) => Type.Integer({ minimum: 0, description });

/**
 * The limits a key carries (docs/wire.md §2.2: codes 1113, 1220, 1302-1305, 1308). Every
 * part is optional and absent means unlimited: a key without a policy behaves as keys always did.
 * The "model" of a route is its `model` field (`search_engine` for web search, `agent_id` for
 * agents); routes without one (files, async results) count only against `requestsPerMinute`.
 */
export const KeyPolicySchema = Type.Object(
  {
    scope: Type.Optional(Type.Union([Type.Literal('user'), Type.Literal('admin')], { description: 'admin keys may also call /admin. Default user.' })),
    models: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), { maxItems: 1000, description: 'The models this key may call (others: 1220). Absent: all.' }),
    ),
    concurrency: Type.Optional(
      Type.Object(
        {
          perModel: Type.Optional(Count('Calls of one model running at once for this key (1302); a stream holds its slot until it ends.')),
          models: Type.Optional(Type.Record(Type.String({ minLength: 1 }), Count('Per-model override of perModel.'))),
        },
        { additionalProperties: false },
      ),
    ),
    requestsPerMinute: Type.Optional(Count('Requests per calendar minute on any authenticated route (1303, with Retry-After).')),
    quota: Type.Optional(
      Type.Object(
        {
          period: Type.Union([Type.Literal('day'), Type.Literal('month')], {
            description: 'UTC calendar day (over quota: 1304) or month (1308); the message names the reset time.',
          }),
          tokens: Type.Optional(Count('Prompt plus completion tokens: checked before each call, so the call that crosses it completes.')),
          calls: Type.Optional(Count('Model calls, counted when admitted: call number calls+1 is refused.')),
        },
        { additionalProperties: false },
      ),
    ),
    credit: Type.Optional(
      Type.Object(
        {
          balance: Type.Optional(
            Type.Integer({
              description: 'Spendable micro-units. Written: sets the balance. Read: the balance now, open reservations taken off.',
            }),
          ),
          prices: Type.Optional(
            Type.Record(Type.String({ minLength: 1 }), ModelPriceSchema, {
              description: "This key's prices by model name; an entry replaces the config's billing.prices entry for the model.",
            }),
          ),
        },
        {
          additionalProperties: false,
          description: "Prepaid credit: each call's maximum cost is reserved before it runs; refused (1113) when it does not fit the balance.",
        },
      ),
    ),
  },
  { additionalProperties: false },
);
export type KeyPolicy = Static<typeof KeyPolicySchema>;

/**
 * A key's scope; keys without a policy (or without `scope`) are user keys. Only the policy's own
 * `scope` counts and only `admin` grants anything: a value reached through a prototype never does.
 */
export function scopeOf(policy: KeyPolicy | undefined): 'user' | 'admin' {
  return policy !== undefined && Object.hasOwn(policy, 'scope') && policy.scope === 'admin' ? 'admin' : 'user';
}

/** The concurrency limit of one model for this key; undefined when unlimited. */
export function concurrencyLimit(policy: KeyPolicy, model: string): number | undefined {
  return ownValue(policy.concurrency?.models, model) ?? policy.concurrency?.perModel;
}

/**
 * The entry of a map keyed by model name. The name is the caller's: `constructor` or `toString`
 * must find nothing in a map that lacks them, not a function inherited from Object.prototype.
 */
function ownValue<Value>(record: Readonly<Record<string, Value>> | undefined, key: string): Value | undefined {
  return record !== undefined && Object.hasOwn(record, key) ? record[key] : undefined;
}

/** Whether admission has anything to check for a model call of this key. */
export function limitsModelCalls(policy: KeyPolicy): boolean {
  return policy.models !== undefined || policy.concurrency !== undefined || policy.quota !== undefined || policy.credit !== undefined;
}

/**
 * Reads a stored policy (JSON text); undefined for none. Stored policies were validated when
 * written. Its objects have no prototype, so every read of the policy (its limits, its scope)
 * sees only what was stored, whatever has been added to Object.prototype.
 */
export function parseStoredPolicy(text: string | null): KeyPolicy | undefined {
  return text === null ? undefined : (JSON.parse(text, withoutPrototypes) as KeyPolicy);
}

function withoutPrototypes(_key: string, value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  return Object.assign(nullPrototypeRecord<unknown>(), value);
}
