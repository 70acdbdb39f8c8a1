import js from '@eslint/js';
import tseslint from 'typescript-eslint';

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
  ...layerBoundary('backends', ['http', 'api']),
);

/**
 * Config blocks that keep files under src/<layer> from importing src/<folder> for each folder in
 * `forbidden`. no-restricted-imports sees the import as written, so there is one block per depth
 * below the layer, each with the number of '../' that climbs back to src/ from there ('../http'
 * from src/core/chat would be src/core/http, the engine client, which core may use).
 */
function layerBoundary(layer, forbidden) {
  return [1, 2, 3, 4].map((depth) => ({
    files: [`src/${layer}/${'*/'.repeat(depth - 1)}*.ts`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: forbidden.map((folder) => ({
            group: [`${'../'.repeat(depth)}${folder}`, `${'../'.repeat(depth)}${folder}/**`],
            message: `src/${layer} must not import from src/${folder}: what both need belongs in src/core.`,
          })),
        },
      ],
    },
  }));
}
