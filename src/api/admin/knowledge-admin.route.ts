import type { KnowledgeBaseSummary } from '../../core/knowledge/knowledge-index.ts';
import { rateLimitOnly } from '../../http/admission-hooks.ts';
import type { App, AppDependencies } from '../../http/app-types.ts';
import { responses } from '../shared/common.schema.ts';
import { KnowledgeList, KnowledgeListQuery } from './knowledge-admin.schema.ts';

/**
 * GET /admin/knowledge: the knowledge bases of the retrieval tool, with their files and passage
 * counts; registered inside the admin routes, so only admin keys reach it. The CLI's
 * `knowledge list` shows the same.
 */
export function registerKnowledgeAdminRoutes(app: App, deps: AppDependencies): void {
  const knowledge = deps.knowledge;
  app.get(
    '/knowledge',
    {
      schema: {
        operationId: 'listKnowledgeBases',
        tags: ['admin'],
        summary: 'Lists knowledge bases (files uploaded with purpose=retrieval) with their files and passage counts.',
        querystring: KnowledgeListQuery,
        response: responses(KnowledgeList),
      },
      config: { admission: rateLimitOnly },
    },
    async (request) => ({ object: 'list' as const, data: (await knowledge.list(request.query.key_id)).map(toKnowledgeBaseObject) }),
  );
}

function toKnowledgeBaseObject(base: KnowledgeBaseSummary) {
  return {
    owner_key_id: base.ownerKeyId,
    knowledge_id: base.knowledgeId,
    passages: base.passages,
    files: base.files.map((file) => ({
      file_id: file.fileId,
      filename: file.filename,
      sentence_size: file.sentenceSize,
      passages: file.passages,
      characters: file.characters,
      indexed_at: Math.floor(file.indexedAt / 1000),
    })),
  };
}
