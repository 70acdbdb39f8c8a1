import type { App, AppDependencies } from '../../http/app-types.ts';

export function registerLayoutParsingRoutes(_app: App, _deps: AppDependencies): void {}
