import type { App, AppDependencies } from '../../http/app-types.ts';

export function registerTokenizerRoutes(_app: App, _deps: AppDependencies): void {}
