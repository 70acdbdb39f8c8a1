import type { App, AppDependencies } from '../../http/app-types.ts';

export function registerAudioRoutes(_app: App, _deps: AppDependencies): void {}
