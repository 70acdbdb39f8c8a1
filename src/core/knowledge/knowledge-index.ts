/** A file being added to a knowledge base: whose, which base, and how it was cut. */
export interface KnowledgeFileEntry {
  readonly fileId: string;
  readonly ownerKeyId: string;
  readonly knowledgeId: string;
  readonly sentenceSize: number;
}

/** A passage found for a question, best first. */
export interface KnowledgeHit {
  readonly fileId: string;
  readonly filename: string;
  /** Its place in its file, from 0. */
  readonly position: number;
  readonly content: string;
  /** Higher is better, comparable within one search only. */
  readonly score: number;
}

export interface KnowledgeFileSummary {
  readonly fileId: string;
  readonly filename: string;
  readonly sentenceSize: number;
  readonly passages: number;
  readonly characters: number;
  /** Unix ms. */
  readonly indexedAt: number;
}

export interface KnowledgeBaseSummary {
  readonly ownerKeyId: string;
  readonly knowledgeId: string;
  readonly files: readonly KnowledgeFileSummary[];
  readonly passages: number;
}

/**
 * Knowledge bases of the chat retrieval tool, per owner key and knowledge id (SQLite FTS5 /
 * PostgreSQL full-text search). A knowledge base exists while it holds a file; another key's
 * knowledge id is, to a key, one that does not exist.
 */
export interface KnowledgeIndex {
  /**
   * Indexes an uploaded file's passages, in short transactions so other requests are served
   * between them; the file is searched only once all are in. On failure nothing of it remains.
   */
  addFile(entry: KnowledgeFileEntry, passages: readonly string[]): Promise<void>;
  /** The best `limit` passages for the question; undefined when the key has no such knowledge base. */
  search(ownerKeyId: string, knowledgeId: string, question: string, limit: number): Promise<KnowledgeHit[] | undefined>;
  /** Whether the key has this knowledge base (a file in it). */
  has(ownerKeyId: string, knowledgeId: string): Promise<boolean>;
  /** Knowledge bases with their files, of one key or (undefined) of every key. */
  list(ownerKeyId: string | undefined): Promise<KnowledgeBaseSummary[]>;
}
