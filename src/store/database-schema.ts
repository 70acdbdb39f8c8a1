import type { Generated } from 'kysely';
import type { FileState } from '../core/files/file-records.ts';

/** Table `api_keys`: one row per key; the secret is never stored in clear (see core/auth). */
export interface ApiKeyTable {
  id: string;
  secret_hash: string;
  secret_sealed: string;
  name: string | null;
  created_at: number;
  revoked_at: number | null;
  /** The key's policy as JSON (src/core/limits/key-policy.ts); NULL: no limits (0008). */
  policy: string | null;
}

/** Table `key_credits`: the spendable prepaid balance of a key, in micro-units (0008). */
interface KeyCreditTable {
  key_id: string;
  balance: number;
  updated_at: number;
}

/** Table `credit_holds`: credit reserved for a call or task; state held, settled or released (0008, 0012). */
interface CreditHoldTable {
  id: string;
  key_id: string;
  task_id: string | null;
  model: string;
  amount: number;
  state: string;
  /** Unix ms after which any node releases it; null once tied to a task. */
  lease_until: number | null;
  /** What its settlement kept of amount. */
  spent: number;
  created_at: number;
  updated_at: number;
}

/**
 * Table `usage_records`: the append-only usage ledger, one row per completed call (0009: the UTC
 * `day` and the non-token units; on PostgreSQL partitioned by day, src/store/usage/usage-partitions.ts).
 */
export interface UsageRecordTable {
  id: string;
  key_id: string;
  model: string;
  endpoint: string;
  request_id: string;
  /** The UTC day of created_at, `YYYY-MM-DD`. */
  day: string;
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens: number;
  pages: number;
  audio_seconds: number;
  images: number;
  videos: number;
  searches: number;
  urls_read: number;
  /** What the call cost, micro-units (0012). */
  cost: number;
  created_at: number;
}

/** Table `usage_daily`: the ledger summed by day, key, model and endpoint, kept with it (0009); the reports read it. */
export interface UsageDailyTable {
  day: string;
  key_id: string;
  model: string;
  endpoint: string;
  calls: number;
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens: number;
  pages: number;
  audio_seconds: number;
  images: number;
  videos: number;
  searches: number;
  urls_read: number;
  cost: number;
}

/** Table `reader_cache`: read pages by URL and output options (src/tools/reader), until `expires_at`. */
interface ReaderCacheTable {
  /** sha256 hex of the URL and the options that change the output. */
  cache_key: string;
  url: string;
  /** The ReadResult as JSON. */
  result: string;
  created_at: number;
  expires_at: number;
}

/**
 * Table `search_documents`: the local search index, one row per URL. SQLite keeps an FTS5 table
 * and a narrow copy of the filter columns beside it (`search_documents_fts`,
 * `search_document_filters`, synced by triggers); PostgreSQL a generated `search_vector` column.
 * None of these is written by code, so none is typed here.
 */
export interface SearchDocumentTable {
  id: Generated<number>;
  url: string;
  /** Lower-case host without a leading `www.`, for the domain filter. */
  host: string;
  title: string;
  content: string;
  /** The title with a space around each CJK character, for the tokenizers; NULL when it has none. */
  segmented_title: string | null;
  segmented_content: string | null;
  description: string;
  site_name: string;
  icon: string;
  published_at: number | null;
  indexed_at: number;
}

/** Table `tasks`: async tasks (src/tasks); JSON columns hold text. */
export interface TaskTable {
  id: string;
  kind: string;
  owner_key_id: string;
  model: string;
  request_id: string;
  /** What clients see: PROCESSING, SUCCESS or FAIL. */
  status: string;
  /** The queue's view: queued, running or done. */
  state: string;
  request: string;
  result: string | null;
  error_code: string | null;
  error_message: string | null;
  /** Runs started so far (a claim counts one; a shutdown hand-back gives it back). */
  attempts: number;
  /** A queued task is not claimed before this (retry backoff). */
  run_after: number;
  /** The worker running it, and until when its lease holds; another may claim it after that. */
  lease_owner: string | null;
  lease_expires_at: number | null;
  created_at: number;
  updated_at: number;
  deadline_at: number;
}

/** Table `agent_conversations`: agent conversations (slides_glm_agent); JSON columns hold text. */
export interface AgentConversationTable {
  id: string;
  agent_id: string;
  owner_key_id: string;
  /** 1 when created, one more at each saved turn. */
  revision: number;
  messages: string;
  state: string;
  created_at: number;
  updated_at: number;
}

/** Table `files`: uploaded files (src/core/files); the bytes are in the blob store under `files/<id>`. */
export interface FileTable {
  id: string;
  owner_key_id: string;
  purpose: string;
  filename: string;
  bytes: number;
  created_at: number;
  /** `pending` while a multi-step upload is under way (0013); listings show `ready` files only. */
  state: Generated<FileState>;
}

/** Table `knowledge_files`: a file indexed into a knowledge base (0011), written after its passages. */
interface KnowledgeFileTable {
  file_id: string;
  owner_key_id: string;
  knowledge_id: string;
  sentence_size: number;
  passages: number;
  characters: number;
  indexed_at: number;
}

/**
 * Table `knowledge_passages`: the passages of knowledge files (0011). SQLite keeps an FTS5 table
 * and a narrow file column beside it (synced by triggers); PostgreSQL a generated `search_vector`.
 */
interface KnowledgePassageTable {
  id: Generated<number>;
  file_id: string;
  position: number;
  content: string;
  /** The content with a space around each CJK character, for the tokenizers; NULL when it has none. */
  segmented_content: string | null;
}

/** Table `request_hourly`: model calls of every node by UTC hour (ms at its start) and model (0015). */
interface RequestHourlyTable {
  hour_start: number;
  model: string;
  requests: number;
  errors: number;
  refused: number;
}

export interface DatabaseSchema {
  api_keys: ApiKeyTable;
  usage_records: UsageRecordTable;
  usage_daily: UsageDailyTable;
  reader_cache: ReaderCacheTable;
  search_documents: SearchDocumentTable;
  tasks: TaskTable;
  files: FileTable;
  agent_conversations: AgentConversationTable;
  key_credits: KeyCreditTable;
  credit_holds: CreditHoldTable;
  knowledge_files: KnowledgeFileTable;
  knowledge_passages: KnowledgePassageTable;
  request_hourly: RequestHourlyTable;
}
