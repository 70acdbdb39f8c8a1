import { readdirSync } from 'node:fs';
import { URL } from 'node:url';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** Every engine kind's folder under src/backends; engine-http is not a kind but what the kinds share. */
const engineKinds = readdirSync(new URL('src/backends/', import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && entry.name !== 'engine-http')
  .map((entry) => entry.name);

export default tseslint.config(
  { ignores: ['node_modules/**', 'data/**', 'dist/**', 'bin/**', '.tmp/**', 'openapi.json'] },
  js.configs.recommended,
  ...tseslint.configs.strict,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  // core holds the platform's own concepts; the server (http), the routes (api) and the engine
  // adapters (backends) build on it, never the other way round.
  ...layerBoundary('core', ['http', 'api', 'backends']),
  // An engine kind reaches its engine with core's types and engine-http's helpers only, so that
  // changing or removing one kind never touches another.
  ...layerBoundary('backends', ['http', 'api'], {
    siblings: engineKinds,
    message: (kind) => `an engine kind must not import from src/backends/${kind}: what engine kinds share belongs in src/backends/engine-http.`,
  }),
);

/**
 * Config blocks that keep files under src/<layer> from importing src/<folder> for each folder in
 * `forbidden`, and files in one folder of the layer from importing any of `within.siblings`. ESLint
 * keeps only the last block's no-restricted-imports for a file, so each depth gets one block with
 * all of its patterns. no-restricted-imports sees the import as written, so the patterns of each
 * depth have the number of '../' that climbs back to src/ (or to the layer) from there ('../http'
 * from src/core/chat would be src/core/http, the engine client, which core may use).
 */
function layerBoundary(layer, forbidden, within = { siblings: [], message: () => '' }) {
  return [1, 2, 3, 4].map((depth) => {
    const outward = forbidden.map((folder) => ({
      group: [`${'../'.repeat(depth)}${folder}`, `${'../'.repeat(depth)}${folder}/**`],
      message: `src/${layer} must not import from src/${folder}: what both need belongs in src/core.`,
    }));
    const sideways =
      depth < 2
        ? []
        : within.siblings.map((sibling) => ({
            group: [`${'../'.repeat(depth - 1)}${sibling}`, `${'../'.repeat(depth - 1)}${sibling}/**`],
            message: within.message(sibling),
          }));
    return {
      files: [`src/${layer}/${'*/'.repeat(depth - 1)}*.ts`],
      rules: { 'no-restricted-imports': ['error', { patterns: [...outward, ...sideways] }] },
    };
  });
}
