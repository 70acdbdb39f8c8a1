import { Authenticator } from '../core/auth/authenticator.ts';
import { SecretBox } from '../core/auth/secret-box.ts';
import type { PlatformConfig } from '../core/config/config.schema.ts';
import { loadConfigFile } from '../core/config/load-config.ts';
import type { Settings } from '../core/config/settings.ts';
import { ModelResolver } from '../core/models/model-resolver.ts';
import { ApiKeyRepository } from '../store/api-key-repository.ts';
import { openDatabase, type Database } from '../store/database.ts';
import { loadMasterKey } from '../store/master-key.ts';
import { migrateToLatest } from '../store/migrate.ts';

/** The composed, storage-backed parts the server, the worker and the CLI share. */
export interface Platform {
  readonly settings: Settings;
  readonly config: PlatformConfig;
  readonly database: Database;
  readonly keys: ApiKeyRepository;
  readonly authenticator: Authenticator;
  readonly models: ModelResolver;
  /** Revokes a key in storage and in this process's auth cache, so it is refused at once. */
  revokeKey(id: string): Promise<boolean>;
  close(): Promise<void>;
}

/** Loads the config, opens storage and applies pending migrations. */
export async function openPlatform(settings: Settings, environment: NodeJS.ProcessEnv): Promise<Platform> {
  const config = settings.configPath === undefined ? {} : loadConfigFile(settings.configPath, environment);
  const box = new SecretBox(loadMasterKey(settings.dataDir, environment));
  const database = openDatabase(settings);
  try {
    await migrateToLatest(database);
  } catch (error) {
    await database.close();
    throw error;
  }
  const keys = new ApiKeyRepository(database, box);
  const authenticator = new Authenticator(keys, box);
  return {
    settings,
    config,
    database,
    keys,
    authenticator,
    models: new ModelResolver(config.models ?? {}),
    async revokeKey(id) {
      const revoked = await keys.revoke(id);
      authenticator.forget(id);
      return revoked;
    },
    close: () => database.close(),
  };
}
