import type { BackendFactory } from '../../core/engines/backend.ts';

export const createLocalIndexBackend: BackendFactory = () => ({});
