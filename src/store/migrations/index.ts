import type { Migration } from 'kysely';
import * as apiKeys from './0001-api-keys.ts';
import * as usageRecords from './0002-usage-records.ts';
import * as readerCache from './0003-reader-cache.ts';
import * as searchIndex from './0004-search-index.ts';
import * as tasks from './0005-tasks.ts';
import * as files from './0006-files.ts';
import * as agentConversations from './0007-agent-conversations.ts';
import * as keyPolicies from './0008-key-policies.ts';
import * as usageLedger from './0009-usage-ledger.ts';
import * as usageRollupByBatch from './0010-usage-rollup-by-batch.ts';
import * as knowledgeBases from './0011-knowledge-bases.ts';
import * as spendAndReservations from './0012-spend-and-reservations.ts';
import * as pendingFiles from './0013-pending-files.ts';
import * as taskListing from './0014-task-listing.ts';
import * as requestHourly from './0015-request-hourly.ts';

/** Every migration, in order; the names are recorded in the database and must never change. */
export const migrations: Record<string, Migration> = {
  '0001-api-keys': apiKeys,
  '0002-usage-records': usageRecords,
  '0003-reader-cache': readerCache,
  '0004-search-index': searchIndex,
  '0005-tasks': tasks,
  '0006-files': files,
  '0007-agent-conversations': agentConversations,
  '0008-key-policies': keyPolicies,
  '0009-usage-ledger': usageLedger,
  '0010-usage-rollup-by-batch': usageRollupByBatch,
  '0011-knowledge-bases': knowledgeBases,
  '0012-spend-and-reservations': spendAndReservations,
  '0013-pending-files': pendingFiles,
  '0014-task-listing': taskListing,
  '0015-request-hourly': requestHourly,
};
