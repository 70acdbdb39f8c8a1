import type { App, AppDependencies } from '../../http/app-types.ts';

export function registerVideoRoutes(_app: App, _deps: AppDependencies): void {}
