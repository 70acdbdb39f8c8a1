import { Type } from '@sinclair/typebox';
import { KeyPolicySchema } from '../../core/limits/key-policy.ts';

/** The policy as the admin API reads and writes it (src/core/limits/key-policy.ts documents each part). */
const KeyPolicy = KeyPolicySchema;

export const CreateKeyRequest = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  policy: Type.Optional(KeyPolicy),
});

export const UpdatePolicyRequest = Type.Object({
  policy: Type.Object(KeyPolicy.properties, {
    additionalProperties: false,
    description: 'Replaces the whole policy; {} removes every limit (and the admin scope).',
  }),
});

export const KeyIdParams = Type.Object({ id: Type.String({ minLength: 1, description: 'Key id (the part before the dot).' }) });

export const KeyObject = Type.Object({
  id: Type.String(),
  object: Type.Literal('api_key'),
  name: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.Integer({ description: 'Unix timestamp, seconds.' }),
  revoked_at: Type.Union([Type.Integer(), Type.Null()], { description: 'Unix timestamp, seconds; null while active.' }),
  scope: Type.Union([Type.Literal('user'), Type.Literal('admin')]),
  policy: Type.Union([KeyPolicy, Type.Null()], { description: 'null: no limits.' }),
  credit_held: Type.Integer({ description: 'Credit reserved for calls and tasks that have not ended (micro-units).' }),
});

export const CreatedKey = Type.Object({
  ...KeyObject.properties,
  key: Type.String({ description: 'The key <id>.<secret>: shown only in this answer.' }),
});

export const KeyList = Type.Object({ object: Type.Literal('list'), data: Type.Array(KeyObject) });

export const RevokedKey = Type.Object({ id: Type.String(), object: Type.Literal('api_key'), revoked: Type.Literal(true) });

const IsoDate = (description: string) => Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description });

export const UsageQuery = Type.Object({
  key_id: Type.Optional(Type.String({ minLength: 1, description: "Only this key's rows; a non-admin key may name only itself." })),
  model: Type.Optional(Type.String({ minLength: 1 })),
  from: Type.Optional(IsoDate('First UTC day, YYYY-MM-DD (default: 30 days before to).')),
  to: Type.Optional(IsoDate('Last UTC day, included, YYYY-MM-DD (default: today).')),
});

const UsageSums = {
  calls: Type.Integer({ description: 'Calls the usage ledger recorded.' }),
  prompt_tokens: Type.Integer(),
  completion_tokens: Type.Integer(),
  cached_tokens: Type.Integer(),
  total_tokens: Type.Integer(),
  spend_micros: Type.Integer({ description: 'What the calls cost, integer micro-units of the currency (docs/billing.md).' }),
  spend: Type.String({ description: 'The same amount as a decimal of the currency, 6 places.' }),
};

export const UsageReport = Type.Object({
  object: Type.Literal('list'),
  currency: Type.String({ description: 'The currency of every amount (billing.currency).' }),
  data: Type.Array(
    Type.Object({
      date: Type.String({ description: 'UTC day, YYYY-MM-DD.' }),
      key_id: Type.String(),
      model: Type.String(),
      endpoint: Type.String({ description: 'The API called, e.g. chat.completions.' }),
      ...UsageSums,
    }),
  ),
  total: Type.Object(UsageSums, { description: 'The sums over every row.' }),
});

export const TopUpRequest = Type.Object({
  amount_micros: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'Micro-units added to the balance.' }),
});
