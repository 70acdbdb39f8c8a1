import { formatApiKey } from '../core/auth/api-key.ts';
import type { StoredKey } from '../core/auth/stored-key.ts';
import { ApiError, invalidField } from '../core/errors/api-error.ts';
import { createAjv } from '../core/json-schema/create-ajv.ts';
import { KeyPolicySchema, type KeyPolicy } from '../core/limits/key-policy.ts';
import type { ApiKeyRepository } from '../store/api-key-repository.ts';
import type { CreditRepository } from '../store/credit-repository.ts';
import type { UsageReportQuery, UsageReportRow } from '../core/usage/usage-report.ts';
import type { UsageReportRepository } from '../store/usage/usage-report-repository.ts';

/** A key as operators see it: never its secret; the policy with the current credit balance. */
export interface KeyView {
  readonly id: string;
  readonly name: string | null;
  readonly createdAt: number;
  readonly revokedAt: number | null;
  readonly policy: KeyPolicy | undefined;
  /** Credit reserved for calls and tasks that have not ended yet (micro-units); 0 without credit. */
  readonly creditHeld: number;
}

export interface KeyAdminDependencies {
  readonly keys: ApiKeyRepository;
  readonly credits: CreditRepository;
  readonly reports: UsageReportRepository;
  /** Called after a key's policy or state changed, so this process's auth cache forgets it at once. */
  readonly changed: (id: string) => void;
}

const compilePolicyValidator = () => createAjv(false).compile(KeyPolicySchema);
/** Compiled on first use: most key operations (list, revoke, top-up) validate no policy, and a one-shot command would pay for it. */
let policyValidator: ReturnType<typeof compilePolicyValidator> | undefined;

/**
 * The key operations of the admin API (/admin) and of the CLI (`keys ...`): one implementation,
 * so both behave the same. A policy is replaced whole; its `credit.balance`, when given, sets the
 * key's balance and is not stored in the policy (the balance lives in `key_credits`).
 */
export class KeyAdmin {
  readonly #deps: KeyAdminDependencies;

  constructor(deps: KeyAdminDependencies) {
    this.#deps = deps;
  }

  /** Creates a key; the secret is in `key` (`<id>.<secret>`), shown this once. */
  async create(options: { name?: string | undefined; policy?: unknown }): Promise<{ key: string; view: KeyView }> {
    const policy = options.policy === undefined ? undefined : checkPolicy(options.policy);
    const parts = await this.#deps.keys.create({ name: options.name, policy: policy === undefined ? undefined : storedPolicy(policy) });
    if (policy?.credit !== undefined) await this.#deps.credits.setBalance(parts.id, policy.credit.balance ?? 0);
    return { key: formatApiKey(parts), view: await this.#viewOf(parts.id) };
  }

  async list(): Promise<KeyView[]> {
    const keys = await this.#deps.keys.list();
    return Promise.all(keys.map((key) => this.#view(key)));
  }

  async get(id: string): Promise<KeyView | undefined> {
    const key = await this.#deps.keys.findKey(id);
    return key === undefined ? undefined : this.#view(key);
  }

  /** Replaces the policy (null or undefined: none); undefined when there is no such key. */
  async updatePolicy(id: string, input: unknown): Promise<KeyView | undefined> {
    const policy = input === null || input === undefined ? undefined : checkPolicy(input);
    if (!(await this.#deps.keys.setPolicy(id, policy === undefined ? undefined : storedPolicy(policy)))) return undefined;
    const balance = policy?.credit?.balance;
    if (policy?.credit !== undefined && (balance !== undefined || (await this.#deps.credits.balance(id)) === undefined)) {
      await this.#deps.credits.setBalance(id, balance ?? 0);
    }
    this.#deps.changed(id);
    return this.#viewOf(id);
  }

  /** False when no such key exists or it was revoked already. */
  async revoke(id: string): Promise<boolean> {
    const revoked = await this.#deps.keys.revoke(id);
    this.#deps.changed(id);
    return revoked;
  }

  /**
   * Adds `amount` micro-units to the key's balance in one statement; undefined when there is no
   * such key. A key without credit in its policy is refused: a balance it never spends from
   * would only mislead.
   */
  async topUp(id: string, amount: number): Promise<KeyView | undefined> {
    const key = await this.#deps.keys.findKey(id);
    if (key === undefined) return undefined;
    if (key.policy?.credit === undefined) {
      throw new ApiError(
        '1214',
        `The API key ${id} pays from no prepaid credit: give its policy a credit section first (keys policy, PATCH /admin/keys/{id}).`,
      );
    }
    await this.#deps.credits.topUp(id, amount);
    this.#deps.changed(id);
    return this.#view(key);
  }

  /** Usage and spend from the daily rollups, by the groupings asked. */
  usage(query: UsageReportQuery): Promise<UsageReportRow[]> {
    return this.#deps.reports.report(query);
  }

  async #viewOf(id: string): Promise<KeyView> {
    const key = await this.#deps.keys.findKey(id);
    if (key === undefined) throw new Error(`key ${id} vanished while being written`);
    return this.#view(key);
  }

  async #view(key: StoredKey): Promise<KeyView> {
    // The store's policy has null-prototype objects (for its readers' sake); operators get plain ones.
    const policy = key.policy === undefined ? undefined : structuredClone(key.policy);
    const view = { id: key.id, name: key.name, createdAt: key.createdAt, revokedAt: key.revokedAt };
    if (policy?.credit === undefined) return { ...view, policy, creditHeld: 0 };
    const [balance, held] = await Promise.all([this.#deps.credits.balance(key.id), this.#deps.credits.held(key.id)]);
    return { ...view, policy: { ...policy, credit: { ...policy.credit, balance: balance ?? 0 } }, creditHeld: held };
  }
}

/** Validates a policy from JSON (the CLI's argument; the HTTP route has validated it already). */
function checkPolicy(input: unknown): KeyPolicy {
  const validatePolicy = (policyValidator ??= compilePolicyValidator());
  if (validatePolicy(input)) return input;
  const first = validatePolicy.errors?.[0];
  const path = `policy${(first?.instancePath ?? '').replaceAll('/', '.')}`;
  // Ajv reports an unknown field at its parent ("must NOT have additional properties"): name the field itself.
  if (first?.keyword === 'additionalProperties') throw invalidField(`${path}.${String(first.params['additionalProperty'])}`, 'is not a policy field');
  throw invalidField(path, first?.message ?? 'not a key policy');
}

/** The policy as stored: without the balance, which lives in key_credits. */
function storedPolicy(policy: KeyPolicy): KeyPolicy {
  if (policy.credit?.balance === undefined) return policy;
  return { ...policy, credit: policy.credit.prices === undefined ? {} : { prices: policy.credit.prices } };
}
