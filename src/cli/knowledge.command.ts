import type { KnowledgeBaseSummary } from '../core/knowledge/knowledge-index.ts';
import { createKnowledgeIndex } from '../store/knowledge/create-knowledge-index.ts';
import { alignedTable } from './aligned-table.ts';
import type { CliFlags } from './cli-flags.ts';
import { groupUsage } from './cli-usage.ts';
import { withDatabase } from './with-database.ts';

/** `knowledge list [key-id]`: the knowledge bases of the retrieval tool, as GET /admin/knowledge lists them. */
export async function runKnowledge(args: readonly string[], flags: CliFlags): Promise<number> {
  const [action, keyId] = args;
  if (action !== 'list') {
    console.error(groupUsage('knowledge'));
    return 2;
  }
  return withDatabase(flags, async (database) => {
    const bases = await createKnowledgeIndex(database).list(keyId);
    console.log(bases.length === 0 ? 'No knowledge bases.' : knowledgeTable(bases));
    return 0;
  });
}

const columns = ['key', 'knowledge_id', 'file', 'filename', 'passages', 'characters', 'indexed'] as const;

/** One row per file, under a row per knowledge base with its totals. */
export function knowledgeTable(bases: readonly KnowledgeBaseSummary[]): string {
  const rows: string[][] = [[...columns]];
  for (const base of bases) {
    const characters = base.files.reduce((sum, file) => sum + file.characters, 0);
    rows.push([base.ownerKeyId, base.knowledgeId, `${base.files.length} files`, '', String(base.passages), String(characters), '']);
    for (const file of base.files) {
      rows.push(['', '', file.fileId, file.filename, String(file.passages), String(file.characters), new Date(file.indexedAt).toISOString()]);
    }
  }
  return alignedTable(rows);
}
