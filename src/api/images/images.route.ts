import type { App, AppDependencies } from '../../http/app-types.ts';

export function registerImageRoutes(_app: App, _deps: AppDependencies): void {}
