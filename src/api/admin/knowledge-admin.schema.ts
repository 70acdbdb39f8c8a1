import { Type } from '@sinclair/typebox';

/** GET /admin/knowledge: knowledge bases with their files and passage counts. */
const KnowledgeFile = Type.Object({
  file_id: Type.String(),
  filename: Type.String(),
  sentence_size: Type.Integer({ description: 'About how many characters each passage has.' }),
  passages: Type.Integer(),
  characters: Type.Integer({ description: 'Characters of text indexed from the file.' }),
  indexed_at: Type.Integer({ description: 'Unix timestamp, seconds.' }),
});

const KnowledgeBase = Type.Object({
  owner_key_id: Type.String(),
  knowledge_id: Type.String(),
  passages: Type.Integer({ description: 'Passages of all its files.' }),
  files: Type.Array(KnowledgeFile),
});

export const KnowledgeList = Type.Object({ object: Type.Literal('list'), data: Type.Array(KnowledgeBase) });

export const KnowledgeListQuery = Type.Object({
  key_id: Type.Optional(Type.String({ minLength: 1, description: 'Only the knowledge bases of this key.' })),
});
