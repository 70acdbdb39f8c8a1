import type { App, AppDependencies } from '../../http/app-types.ts';

export function registerAsyncResultRoutes(_app: App, _deps: AppDependencies): void {}
