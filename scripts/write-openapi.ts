// Regenerates openapi.json from the route schemas: `npm run openapi:write`.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readSettings } from '../src/core/config/settings.ts';
import { buildApp } from '../src/platform/build-app.ts';
import { renderOpenApi } from '../src/api/openapi.ts';
import { openPlatform } from '../src/platform/open-platform.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'model-platform-openapi-'));
const environment = { MODEL_PLATFORM_DATA_DIR: dataDir };
const platform = await openPlatform(readSettings(environment), environment);
const app = await buildApp({ ...platform, logger: false });
await app.ready();
writeFileSync(new URL('../openapi.json', import.meta.url), renderOpenApi(app));
await app.close();
await platform.close();
rmSync(dataDir, { recursive: true, force: true });
console.log('openapi.json written');
