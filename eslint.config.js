import { readdirSync } from 'node:fs';
import { URL } from 'node:url';
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

/** Every engine kind's folder under src/backends; engine-http is not a kind but what the kinds share. */
const engineKinds = readdirSync(new URL('src/backends/', import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && entry.name !== 'engine-http')
  .map((entry) => entry.name);

/** How to do without a forbidden import, by the folder imported from. */
const remedies = {
  api: 'compose it in src/platform (build-app.ts), or move what both need to src/core.',
  tools: 'name a port in src/core and pass the implementation in from src/platform.',
  store: 'name a port in src/core and pass the implementation in from src/platform.',
  blobs: 'name a port in src/core and pass the implementation in from src/platform.',
  limits: 'name a port in src/core and pass the implementation in from src/platform.',
  tasks: 'name a port in src/core and pass the implementation in from src/platform.',
};

export default tseslint.config(
  { ignores: ['node_modules/**', 'data/**', 'dist/**', 'bin/**', '.tmp/**', 'openapi.json'] },
  js.configs.recommended,
  ...tseslint.configs.strict,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  // The operator console (React): the rules of hooks, which the type checker cannot see.
  { files: ['src/console/**/*.{ts,tsx}'], ...reactHooks.configs.flat['recommended-latest'] },
  // core holds the platform's own concepts and the ports it needs; the server (http), the routes
  // (api), the engine adapters (backends) and the implementations of its ports (tools, store,
  // blobs, limits, tasks) build on it, never the other way round. src/platform, the composition
  // root, is the one place that joins them.
  ...layerBoundary('core', ['http', 'api', 'backends', 'tools', 'store', 'blobs', 'limits', 'tasks']),
  // Routes reach storage through the ports in AppDependencies, so a route can be read and tested
  // without a database.
  ...layerBoundary('api', ['store']),
  // The HTTP server knows nothing of the routes it serves: build-app (src/platform) registers them.
  ...layerBoundary('http', ['api']),
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
      message: `src/${layer} must not import from src/${folder}: ${remedies[folder] ?? 'what both need belongs in src/core.'}`,
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
