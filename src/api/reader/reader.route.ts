import type { App, AppDependencies } from '../../http/app-types.ts';

export function registerReaderRoutes(_app: App, _deps: AppDependencies): void {}
