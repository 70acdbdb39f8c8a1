import type { App, AppDependencies } from '../../http/app-types.ts';

export function registerWebSearchRoutes(_app: App, _deps: AppDependencies): void {}
