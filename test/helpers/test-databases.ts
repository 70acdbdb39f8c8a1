import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * The storage back ends every storage test runs on: SQLite always, PostgreSQL when
 * TEST_DATABASE_URL points at a server where the role may create databases (.ci/run sets it).
 */
export interface DatabaseTarget {
  readonly name: 'sqlite' | 'postgres';
  /** Creates a fresh, empty database; returns its URL (undefined for SQLite in a temp data dir). */
  create(): Promise<string | undefined>;
  /** Drops what create() made. */
  drop(url: string | undefined): Promise<void>;
}

const adminUrl = process.env['TEST_DATABASE_URL'];

export const sqliteTarget: DatabaseTarget = {
  name: 'sqlite',
  create: async () => undefined,
  drop: async () => undefined,
};

const postgresTarget: DatabaseTarget = {
  name: 'postgres',
  async create() {
    const name = `mp_test_${randomBytes(6).toString('hex')}`;
    await withAdmin((client) => client.query(`CREATE DATABASE ${name}`));
    const url = new URL(adminUrl ?? '');
    url.pathname = `/${name}`;
    return url.toString();
  },
  async drop(url) {
    if (url === undefined) return;
    const name = new URL(url).pathname.slice(1);
    // An autovacuum worker busy in the database makes the drop fail for a role without
    // pg_signal_backend (42501) or leaves it in use a moment (55006): it ends soon, so try again.
    for (let attempt = 1; ; attempt += 1) {
      try {
        await withAdmin((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
        return;
      } catch (error) {
        const code = (error as { code?: unknown }).code;
        if (attempt >= 10 || (code !== '42501' && code !== '55006')) throw error;
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
  },
};

export const databaseTargets: readonly DatabaseTarget[] = adminUrl === undefined ? [sqliteTarget] : [sqliteTarget, postgresTarget];

/** Says so when PostgreSQL is left out, so a green run cannot hide it. */
export function reportSkippedPostgres(): void {
  if (adminUrl === undefined) console.warn('TEST_DATABASE_URL is not set: PostgreSQL storage tests are skipped.');
}

async function withAdmin(work: (client: pg.Client) => Promise<unknown>): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await work(client);
  } finally {
    await client.end();
  }
}
