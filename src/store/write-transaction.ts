import { sql, type Kysely } from 'kysely';
import type { Database } from './database.ts';
import type { DatabaseSchema } from './database-schema.ts';

/**
 * A transaction that may read before it writes. On SQLite it takes the write lock at its start
 * (BEGIN IMMEDIATE, waiting up to busy_timeout for it): a plain (deferred) transaction that read
 * first could not write at all once another connection committed in between (SQLITE_BUSY, which
 * busy_timeout does not retry), and the usage ledger writes from a connection of its own
 * (sqlite-ledger-thread.ts). On PostgreSQL an ordinary transaction.
 */
export async function writeTransaction<Result>(database: Database, work: (transaction: Kysely<DatabaseSchema>) => Promise<Result>): Promise<Result> {
  if (database.dialect === 'postgres') return database.db.transaction().execute(work);
  return database.db.connection().execute(async (connection) => {
    await sql`BEGIN IMMEDIATE`.execute(connection);
    let result: Result;
    try {
      result = await work(connection);
    } catch (error) {
      await rollBack(database, connection);
      throw error;
    }
    try {
      await sql`COMMIT`.execute(connection);
    } catch (error) {
      await rollBack(database, connection);
      throw error;
    }
    return result;
  });
}

/**
 * Ends the SQLite transaction unless SQLite ended it itself: on SQLITE_FULL or an I/O error it
 * rolls back on its own, and a ROLLBACK then would fail and hide the error that says why.
 */
async function rollBack(database: Database, connection: Kysely<DatabaseSchema>): Promise<void> {
  if (database.sqlite?.inTransaction === false) return;
  await sql`ROLLBACK`.execute(connection);
}
