import multipart from '@fastify/multipart';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { multipartPluginOptions } from '../http/multipart.ts';
import type { App, AppDependencies } from '../http/app-types.ts';
import { registerAdminRoutes } from './admin/admin.route.ts';
import { registerAgentRoutes } from './agents/agents.route.ts';
import { registerAsyncChatRoutes } from './async-chat/async-chat.route.ts';
import { registerAsyncResultRoutes } from './async-result/async-result.route.ts';
import { registerAudioRoutes } from './audio/audio.route.ts';
import { registerBlobRoutes } from './blobs/blobs.route.ts';
import { registerChatRoutes } from './chat/chat.route.ts';
import { registerFileRoutes } from './files/files.route.ts';
import { registerImageRoutes } from './images/images.route.ts';
import { registerLayoutParsingRoutes } from './layout-parsing/layout-parsing.route.ts';
import { registerModelRoutes } from './models/models.route.ts';
import { registerReaderRoutes } from './reader/reader.route.ts';
import { registerTokenizerRoutes } from './tokenizer/tokenizer.route.ts';
import { registerVideoRoutes } from './videos/videos.route.ts';
import { registerWebSearchRoutes } from './web-search/web-search.route.ts';

/** Model and tool endpoints; the first prefix is documented, the others are aliases (docs/wire.md §6). */
export const modelPrefixes = ['/paas/v4', '/api/paas/v4', '/api/coding/paas/v4'] as const;

/** Agent endpoints, including the paths the SDKs build by appending v1/agents to their base URL. */
const agentPrefixes = ['/v1/agents', '/api/v1/agents', '/paas/v4/v1/agents', '/api/paas/v4/v1/agents', '/api/coding/paas/v4/v1/agents'] as const;

type RouteModule = (app: App, deps: AppDependencies) => void;

const modelRouteModules: readonly RouteModule[] = [
  registerChatRoutes,
  registerAsyncChatRoutes,
  registerTokenizerRoutes,
  registerImageRoutes,
  registerVideoRoutes,
  registerAsyncResultRoutes,
  registerWebSearchRoutes,
  registerReaderRoutes,
  registerLayoutParsingRoutes,
  registerModelRoutes,
];

/** Routes that take multipart/form-data bodies, in a scope of their own (registerUnderPrefixes). */
const multipartRouteModules: readonly RouteModule[] = [registerAudioRoutes, registerFileRoutes];

const agentRouteModules: readonly RouteModule[] = [registerAgentRoutes];

export async function registerApiRoutes(app: App, deps: AppDependencies): Promise<void> {
  // Signed media downloads: outside /paas/v4, since the URLs are the server's own, not the API's.
  registerBlobRoutes(app, deps);
  await registerUnderPrefixes(app, deps, modelPrefixes, modelRouteModules, multipartRouteModules);
  await registerUnderPrefixes(app, deps, agentPrefixes, agentRouteModules, []);
  // Operators: keys, policies and usage; admin-scoped keys only.
  await app.register(async (scope) => registerAdminRoutes(scope.withTypeProvider<TypeBoxTypeProvider>(), deps), { prefix: '/admin' });
}

async function registerUnderPrefixes(
  app: App,
  deps: AppDependencies,
  prefixes: readonly string[],
  modules: readonly RouteModule[],
  multipartModules: readonly RouteModule[],
): Promise<void> {
  for (const [index, prefix] of prefixes.entries()) {
    await app.register(
      async (scope) => {
        if (index > 0) {
          scope.addHook('onRoute', (route) => {
            route.schema = { ...route.schema, hide: true };
          });
        }
        const typed = scope.withTypeProvider<TypeBoxTypeProvider>();
        for (const register of modules) register(typed, deps);
        if (multipartModules.length === 0) return;
        // The multipart parser only where forms are taken: the plugin also adds an async onResponse
        // hook (two promises) to every request of the scope it is registered in.
        await scope.register(async (formScope) => {
          await formScope.register(multipart, multipartPluginOptions);
          const typedForms = formScope.withTypeProvider<TypeBoxTypeProvider>();
          for (const register of multipartModules) register(typedForms, deps);
        });
      },
      { prefix },
    );
  }
}
