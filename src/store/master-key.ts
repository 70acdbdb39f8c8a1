import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { ConfigError } from '../core/config/config-error.ts';

/**
 * The 32-byte key that seals API-key secrets. From `MODEL_PLATFORM_MASTER_KEY` (64 hex characters;
 * every node of a fleet must share it), else `<dataDir>/master.key`, created on first start.
 */
export function loadMasterKey(dataDir: string, environment: NodeJS.ProcessEnv): Buffer {
  const fromEnvironment = environment['MODEL_PLATFORM_MASTER_KEY']?.trim();
  if (fromEnvironment !== undefined && fromEnvironment !== '') {
    if (!/^[0-9a-fA-F]{64}$/.test(fromEnvironment)) {
      throw new ConfigError('MODEL_PLATFORM_MASTER_KEY: must be 64 hexadecimal characters (32 bytes)');
    }
    return Buffer.from(fromEnvironment, 'hex');
  }
  const path = join(dataDir, 'master.key');
  if (!existsSync(path)) {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(path, randomBytes(32).toString('hex') + '\n', { mode: 0o600, flag: 'wx' });
  }
  const text = readFileSync(path, 'utf8').trim();
  if (!/^[0-9a-fA-F]{64}$/.test(text)) throw new ConfigError(`${path}: not a 64-hex-character master key`);
  return Buffer.from(text, 'hex');
}
