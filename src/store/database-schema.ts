/** Table `api_keys`: one row per key; the secret is never stored in clear (see core/auth). */
export interface ApiKeyTable {
  id: string;
  secret_hash: string;
  secret_sealed: string;
  name: string | null;
  created_at: number;
  revoked_at: number | null;
}

export interface DatabaseSchema {
  api_keys: ApiKeyTable;
}

