import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

/**
 * The operator console's build: `npm run build` writes it to dist/console, which the server
 * serves at /console (src/http/console.route.ts). File names carry a hash of their content, so the
 * server lets browsers keep them for good and revalidates only index.html.
 */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/console/',
  plugins: [react()],
  build: {
    outDir: fileURLToPath(new URL('../../dist/console', import.meta.url)),
    emptyOutDir: true,
    // Charts and the component library make one large chunk; the console is an operator tool on a fast link.
    chunkSizeWarningLimit: 2048,
  },
  logLevel: 'warn',
});
