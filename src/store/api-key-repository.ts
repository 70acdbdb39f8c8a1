import { generateApiKey, hashSecret, type ApiKeyParts } from '../core/auth/api-key.ts';
import type { SecretBox } from '../core/auth/secret-box.ts';
import type { KeyLookup, StoredKey } from '../core/auth/stored-key.ts';
import { parseStoredPolicy, type KeyPolicy } from '../core/limits/key-policy.ts';
import type { Database } from './database.ts';
import type { ApiKeyTable } from './database-schema.ts';

/** API keys in the database: secrets hashed for raw-key checks and sealed for JWT checks. */
export class ApiKeyRepository implements KeyLookup {
  readonly #database: Database;
  readonly #box: SecretBox;

  constructor(database: Database, box: SecretBox) {
    this.#database = database;
    this.#box = box;
  }

  /** Stores a new key (a given one, or a generated one) and returns it in clear, the only time it is. */
  async create(options: { name?: string | undefined; key?: ApiKeyParts | undefined; policy?: KeyPolicy | undefined } = {}): Promise<ApiKeyParts> {
    const key = options.key ?? generateApiKey();
    await this.#database.db
      .insertInto('api_keys')
      .values({
        id: key.id,
        secret_hash: hashSecret(key.secret),
        secret_sealed: this.#box.seal(key.secret),
        name: options.name ?? null,
        created_at: Date.now(),
        revoked_at: null,
        policy: options.policy === undefined ? null : JSON.stringify(options.policy),
      })
      .execute();
    return key;
  }

  /** Replaces a key's policy (undefined: none); false when no such key exists. */
  async setPolicy(id: string, policy: KeyPolicy | undefined): Promise<boolean> {
    const result = await this.#database.db
      .updateTable('api_keys')
      .set({ policy: policy === undefined ? null : JSON.stringify(policy) })
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async findKey(id: string): Promise<StoredKey | undefined> {
    const row = await this.#database.db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
    return row === undefined ? undefined : toStoredKey(row);
  }

  async list(): Promise<StoredKey[]> {
    const rows = await this.#database.db.selectFrom('api_keys').selectAll().orderBy('created_at').orderBy('id').execute();
    return rows.map(toStoredKey);
  }

  async count(): Promise<number> {
    const row = await this.#database.db
      .selectFrom('api_keys')
      .select((builder) => builder.fn.countAll<number | string>().as('total'))
      .executeTakeFirstOrThrow();
    return Number(row.total);
  }

  /** Marks the key revoked; false when no such key exists or it was already revoked. */
  async revoke(id: string): Promise<boolean> {
    const result = await this.#database.db
      .updateTable('api_keys')
      .set({ revoked_at: Date.now() })
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }
}

function toStoredKey(row: ApiKeyTable): StoredKey {
  return {
    id: row.id,
    secretHash: row.secret_hash,
    secretSealed: row.secret_sealed,
    name: row.name,
    createdAt: Number(row.created_at),
    revokedAt: row.revoked_at === null ? null : Number(row.revoked_at),
    policy: parseStoredPolicy(row.policy),
  };
}
