import type {
  CompiledQuery,
  DatabaseConnection,
  DatabaseIntrospector,
  Dialect,
  DialectAdapter,
  Driver,
  Kysely,
  QueryCompiler,
  QueryResult,
  TransactionSettings,
} from 'kysely';
import { storageFailure } from '../core/errors/storage-failure.ts';

/**
 * Whether a database error means its disk is full: SQLite's SQLITE_FULL ("database or disk is
 * full"), PostgreSQL's disk_full (SQLSTATE 53100, "could not extend file"); SQLITE_READONLY and
 * PostgreSQL's read-only transaction (25006) are a read-only one.
 */
export function databaseDiskCondition(error: unknown): 'full' | 'read-only' | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'SQLITE_FULL' || code === '53100') return 'full';
  if (code === 'SQLITE_READONLY' || code === '25006') return 'read-only';
  return undefined;
}

function converted(error: unknown): unknown {
  const condition = databaseDiskCondition(error);
  return condition === undefined ? error : storageFailure(condition, error);
}

/**
 * A dialect whose every statement (transactions' BEGIN and COMMIT included) fails with the
 * platform's "storage is full" 503 when the database's disk is full, instead of an error that
 * reaches the caller as a bare 500. One place for every repository: an upload's record, a task's
 * row, a key's credit hold. Other errors (unique violations, a lost connection) pass unchanged.
 * A rollback after SQLite ended the transaction itself (it does on SQLITE_FULL) succeeds, so the
 * error that caused it is the one reported.
 */
export class DiskFullDialect implements Dialect {
  readonly #inner: Dialect;

  constructor(inner: Dialect) {
    this.#inner = inner;
  }

  createDriver(): Driver {
    return new DiskFullDriver(this.#inner.createDriver());
  }

  createQueryCompiler(): QueryCompiler {
    return this.#inner.createQueryCompiler();
  }

  createAdapter(): DialectAdapter {
    return this.#inner.createAdapter();
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's own signature.
  createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    return this.#inner.createIntrospector(db);
  }
}

/** Hands out wrapped connections and gives the inner driver back its own (pg's release needs it). */
class DiskFullDriver implements Driver {
  readonly #inner: Driver;
  readonly #innerOf = new WeakMap<DatabaseConnection, DatabaseConnection>();

  constructor(inner: Driver) {
    this.#inner = inner;
  }

  init(): Promise<void> {
    return this.#inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const inner = await this.#inner.acquireConnection();
    const outer = new DiskFullConnection(inner);
    this.#innerOf.set(outer, inner);
    return outer;
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    await guard(() => this.#inner.beginTransaction(this.#unwrap(connection), settings));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await guard(() => this.#inner.commitTransaction(this.#unwrap(connection)));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      await this.#inner.rollbackTransaction(this.#unwrap(connection));
    } catch (error) {
      // SQLite rolls a transaction back itself on SQLITE_FULL; the failure that caused it is the one to report.
      if (isNothingToRollBack(error)) return;
      throw converted(error);
    }
  }

  async savepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    await guard(() => this.#savepoints('savepoint').call(this.#inner, this.#unwrap(connection), name, compile));
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    await guard(() => this.#savepoints('rollbackToSavepoint').call(this.#inner, this.#unwrap(connection), name, compile));
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    await guard(() => this.#savepoints('releaseSavepoint').call(this.#inner, this.#unwrap(connection), name, compile));
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.#inner.releaseConnection(this.#unwrap(connection));
  }

  destroy(): Promise<void> {
    return this.#inner.destroy();
  }

  #unwrap(connection: DatabaseConnection): DatabaseConnection {
    return this.#innerOf.get(connection) ?? connection;
  }

  #savepoints(method: 'savepoint' | 'rollbackToSavepoint' | 'releaseSavepoint'): NonNullable<Driver['savepoint']> {
    const implementation = this.#inner[method];
    if (implementation === undefined) throw new Error(`the database driver does not support ${method}`);
    return implementation;
  }
}

class DiskFullConnection implements DatabaseConnection {
  readonly #inner: DatabaseConnection;

  constructor(inner: DatabaseConnection) {
    this.#inner = inner;
  }

  executeQuery<Row>(compiledQuery: CompiledQuery): Promise<QueryResult<Row>> {
    return guard(() => this.#inner.executeQuery<Row>(compiledQuery));
  }

  async *streamQuery<Row>(compiledQuery: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<Row>> {
    try {
      yield* this.#inner.streamQuery<Row>(compiledQuery, chunkSize);
    } catch (error) {
      throw converted(error);
    }
  }
}

/** SQLite's answer to a ROLLBACK after it ended the transaction itself. */
function isNothingToRollBack(error: unknown): boolean {
  return error instanceof Error && /no transaction is active/.test(error.message);
}

async function guard<Result>(operation: () => Promise<Result>): Promise<Result> {
  try {
    return await operation();
  } catch (error) {
    throw converted(error);
  }
}
