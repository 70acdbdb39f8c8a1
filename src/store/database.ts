import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import type { DatabaseSchema } from './database-schema.ts';
import { DiskFullDialect } from './disk-full-dialect.ts';

type Dialect = 'sqlite' | 'postgres';

export interface Database {
  readonly db: Kysely<DatabaseSchema>;
  readonly dialect: Dialect;
  /** The SQLite connection under `db` (SQLite only); the usage ledger opens its file again from its writer thread. */
  readonly sqlite?: SqliteDatabase.Database;
  /** A cheap round trip, for /readyz. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

// int8 columns (timestamps in ms) come back from pg as strings unless told otherwise.
pg.types.setTypeParser(pg.types.builtins.INT8, (text) => Number(text));

/**
 * PostgreSQL when `databaseUrl` is set, otherwise SQLite at `<dataDir>/platform.db`; a full disk
 * fails a statement with the platform's "storage is full" error (DiskFullDialect). `log` hears of
 * pooled PostgreSQL connections the server closed (unset: they are only replaced).
 */
export function openDatabase(options: { databaseUrl: string | undefined; dataDir: string; log?: (message: string, error: unknown) => void }): Database {
  if (options.databaseUrl !== undefined) {
    const pool = new pg.Pool({ connectionString: options.databaseUrl, max: 10 });
    // An idle pooled connection that PostgreSQL ends (a restart, a failover, an operator) reports
    // here; unheard, that error would end the process. The pool opens a new one when next asked.
    pool.on('error', (error) => options.log?.('a pooled PostgreSQL connection was closed', error));
    const db = new Kysely<DatabaseSchema>({ dialect: new DiskFullDialect(new PostgresDialect({ pool })) });
    return wrap(db, 'postgres');
  }
  mkdirSync(options.dataDir, { recursive: true });
  const sqlite = new SqliteDatabase(join(options.dataDir, 'platform.db'));
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('foreign_keys = ON');
  const db = new Kysely<DatabaseSchema>({ dialect: new DiskFullDialect(new SqliteDialect({ database: sqlite })) });
  return wrap(db, 'sqlite', sqlite);
}

function wrap(db: Kysely<DatabaseSchema>, dialect: Dialect, sqlite?: SqliteDatabase.Database): Database {
  return {
    db,
    dialect,
    ...(sqlite === undefined ? {} : { sqlite }),
    async ping() {
      await db.selectFrom('api_keys').select('id').limit(1).execute();
    },
    async close() {
      await db.destroy();
    },
  };
}
