import { resolve } from 'node:path';
import { ConfigError } from './config-error.ts';

/** Start-up settings read from the environment and command-line flags (DESIGN "Operating it"). */
export interface Settings {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  /** Path of the YAML model catalog, if any. */
  readonly configPath: string | undefined;
  /** `<id>.<secret>` created at start when absent. */
  readonly bootstrapKey: string | undefined;
  /** `postgres://…` switches storage to PostgreSQL; otherwise SQLite under dataDir. */
  readonly databaseUrl: string | undefined;
}

export interface SettingsFlags {
  readonly config?: string | undefined;
  readonly port?: string | undefined;
  readonly host?: string | undefined;
}

export function readSettings(environment: NodeJS.ProcessEnv, flags: SettingsFlags = {}): Settings {
  const portText = flags.port ?? environment['PORT'] ?? '8080';
  const port = Number(portText);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ConfigError(`PORT: '${portText}' is not a port number (0-65535)`);
  }
  const bootstrapKey = nonEmpty(environment['MODEL_PLATFORM_BOOTSTRAP_KEY']);
  if (bootstrapKey !== undefined && bootstrapKey.split('.').length !== 2) {
    throw new ConfigError('MODEL_PLATFORM_BOOTSTRAP_KEY: must have the form <id>.<secret>');
  }
  const databaseUrl = nonEmpty(environment['DATABASE_URL']);
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL: only postgres:// URLs are supported (leave it unset for SQLite)');
  }
  const configPath = flags.config ?? nonEmpty(environment['MODEL_PLATFORM_CONFIG']);
  return {
    port,
    host: flags.host ?? nonEmpty(environment['HOST']) ?? '0.0.0.0',
    dataDir: resolve(nonEmpty(environment['MODEL_PLATFORM_DATA_DIR']) ?? './data'),
    configPath: configPath === undefined ? undefined : resolve(configPath),
    bootstrapKey,
    databaseUrl,
  };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}
