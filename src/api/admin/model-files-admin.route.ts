import { rateLimitOnly } from '../../http/admission-hooks.ts';
import type { App, AppDependencies } from '../../http/app-types.ts';
import type { ModelFileStatus } from '../../platform/model-files/model-files.ts';
import { responses } from '../shared/common.schema.ts';
import { ModelFileList, type ModelFileObject } from './model-files-admin.schema.ts';

/**
 * GET /admin/model-files: the hf:// files of the catalog on this node, with each download's
 * progress or failure. Registered inside the admin routes, so only admin keys reach it.
 */
export function registerModelFileAdminRoutes(app: App, deps: Pick<AppDependencies, 'modelFiles'>): void {
  app.get(
    '/model-files',
    {
      schema: {
        operationId: 'listModelFiles',
        tags: ['admin'],
        summary: 'Lists the hf:// model files of the catalog on this node: ready, downloading (how far), failed (why) or missing.',
        response: responses(ModelFileList),
      },
      config: { admission: rateLimitOnly },
    },
    async () => ({ data: (deps.modelFiles?.statuses() ?? []).map(toModelFileObject) }),
  );
}

function toModelFileObject(status: ModelFileStatus): ModelFileObject {
  return {
    uri: status.uri,
    path: status.path,
    bytes: status.bytes,
    state: status.state,
    downloaded_bytes: status.downloadedBytes,
    total_bytes: status.totalBytes,
    error: status.error,
  };
}
