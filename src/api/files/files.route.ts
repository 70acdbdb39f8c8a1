import type { App, AppDependencies } from '../../http/app-types.ts';

export function registerFileRoutes(_app: App, _deps: AppDependencies): void {}
