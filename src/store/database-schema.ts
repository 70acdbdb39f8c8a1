/** Table `api_keys`: one row per key; the secret is never stored in clear (see core/auth). */
export interface ApiKeyTable {
  id: string;
  secret_hash: string;
  secret_sealed: string;
  name: string | null;
  created_at: number;
  revoked_at: number | null;
}

/** Table `usage_records`: the append-only usage ledger, one row per completed call. */
export interface UsageRecordTable {
  id: string;
  key_id: string;
  model: string;
  endpoint: string;
  request_id: string;
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens: number;
  created_at: number;
}

export interface DatabaseSchema {
  api_keys: ApiKeyTable;
  usage_records: UsageRecordTable;
}

