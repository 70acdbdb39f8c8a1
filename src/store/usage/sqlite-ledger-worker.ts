// The usage ledger's writer thread (sqlite-ledger-thread.ts): its own connection to the platform's
// SQLite file, writing each batch it is sent and answering with its id (and the error, if any).
import { parentPort, workerData } from 'node:worker_threads';
import SqliteDatabase from 'better-sqlite3';
import { unpackLedgerRows, type PackedLedgerRecords } from './ledger-row.ts';
import { SqliteLedgerWriter } from './sqlite-ledger-writer.ts';

export interface LedgerBatch {
  readonly id: number;
  /** The batch's records, packed (packLedgerRecords). */
  readonly records: PackedLedgerRecords;
}

/** Sent last: the connection is closed and the thread ends. */
export interface LedgerClose {
  readonly close: true;
}

export interface LedgerBatchWritten {
  readonly id: number;
  /** Why the batch was not written (it was rolled back whole). */
  readonly error?: string;
}

const port = parentPort;
if (port !== null) {
  const sqlite = new SqliteDatabase((workerData as { path: string }).path);
  // WAL is the file's mode already (set by the main connection); a write waits for the other's lock.
  sqlite.pragma('busy_timeout = 5000');
  // Prepared at the first batch, and again after a failed attempt (a table missing then is reported, not fatal).
  let writer: SqliteLedgerWriter | undefined;
  port.on('message', (message: LedgerBatch | LedgerClose) => {
    if ('close' in message) {
      sqlite.close();
      port.close();
      return;
    }
    const { id, records } = message;
    let answer: LedgerBatchWritten;
    try {
      writer ??= new SqliteLedgerWriter(sqlite);
      writer.write(unpackLedgerRows(records));
      answer = { id };
    } catch (error) {
      writer = undefined;
      answer = { id, error: error instanceof Error ? error.message : String(error) };
    }
    port.postMessage(answer);
  });
}
