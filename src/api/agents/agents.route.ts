import type { App, AppDependencies } from '../../http/app-types.ts';

export function registerAgentRoutes(_app: App, _deps: AppDependencies): void {}
