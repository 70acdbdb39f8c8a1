import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { streamEventSchemas } from './stream-schemas.ts';
import type { App } from '../http/app-types.ts';

const openApiInfo = {
  title: 'Model Platform API',
  version: '4.0.0',
  description:
    'Self-hosted implementation of the Model Platform HTTP API. Model endpoints are also served under ' +
    '/api/paas/v4 and /api/coding/paas/v4; agent endpoints also under /api/v1/agents and /paas/v4/v1/agents.',
};

/** OpenAPI 3.1 generated from the route schemas, served at /openapi.json, with a docs page at /docs. */
export async function registerOpenApi(app: App): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: openApiInfo,
      components: {
        // TypeBox schemas are plain JSON Schema; the OpenAPI typings model schema objects differently.
        schemas: streamEventSchemas as unknown as Record<string, never>,
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'API key <id>.<secret>, or a JWT signed with the secret.' },
        },
      },
      security: [{ bearerAuth: [] }],
    },
  });
  await app.register(async (scope) => {
    scope.addHook('onRoute', (route) => {
      route.config = { ...route.config, public: true };
    });
    await scope.register(swaggerUi, { routePrefix: '/docs' });
  });
  app.get('/openapi.json', { schema: { hide: true }, config: { public: true } }, async () => app.swagger());
}

/** The committed form of the document (openapi.json); a test fails when the schemas drift from it. */
export function renderOpenApi(app: App): string {
  return `${JSON.stringify(app.swagger(), null, 2)}\n`;
}
