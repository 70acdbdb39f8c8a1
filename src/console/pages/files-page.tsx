import { Badge, Stack, Title } from '@mantine/core';
import { useSession } from '../api/session.tsx';
import { useApiGet, type ListAnswer } from '../api/use-api.ts';
import { EmptyState, PageState } from './page-state.tsx';
import { ResponsiveTable } from './responsive-table.tsx';

interface FileView {
  readonly id: string;
  readonly bytes: number;
  readonly created_at: number;
  readonly filename: string;
  readonly purpose: string;
}

interface KnowledgeBase {
  readonly owner_key_id: string;
  readonly knowledge_id: string;
  readonly passages: number;
  readonly files: { file_id: string; filename: string; passages: number; characters: number }[];
}

/** The signed-in key's files (GET /files answers each key with its own) and, for operators, every knowledge base. */
export function FilesPage() {
  const { admin } = useSession();
  const files = useApiGet<ListAnswer<FileView>>('/paas/v4/files');
  const knowledge = useApiGet<ListAnswer<KnowledgeBase>>('/admin/knowledge', { enabled: admin });
  return (
    <Stack>
      <Title order={2}>Files &amp; knowledge bases</Title>
      <Title order={3}>This key&apos;s files</Title>
      <PageState loading={files.isPending} error={files.error} label="Files" />
      {files.data !== undefined && files.data.data.length === 0 && <EmptyState>This key has no files.</EmptyState>}
      {files.data !== undefined && files.data.data.length > 0 && (
        <ResponsiveTable
          label="This key's files"
          rows={files.data.data}
          rowKey={(file) => file.id}
          columns={[
            { label: 'File', cell: (file) => file.filename },
            { label: 'Purpose', cell: (file) => <Badge variant="light">{file.purpose}</Badge> },
            { label: 'Bytes', cell: (file) => file.bytes },
            { label: 'Uploaded', cell: (file) => new Date(file.created_at * 1000).toISOString().slice(0, 10) },
          ]}
        />
      )}
      {admin && (
        <>
          <Title order={3}>Knowledge bases (every key)</Title>
          <PageState loading={knowledge.isPending} error={knowledge.error} label="Knowledge bases" />
          {knowledge.data !== undefined && knowledge.data.data.length === 0 && <EmptyState>No knowledge bases yet.</EmptyState>}
          {knowledge.data !== undefined && knowledge.data.data.length > 0 && (
            <ResponsiveTable
              label="Knowledge bases"
              rows={knowledge.data.data}
              rowKey={(base) => `${base.owner_key_id}/${base.knowledge_id}`}
              columns={[
                { label: 'Knowledge base', cell: (base) => base.knowledge_id },
                { label: 'Key', cell: (base) => base.owner_key_id.slice(0, 12) },
                { label: 'Files', cell: (base) => base.files.map((file) => `${file.filename} (${file.passages})`).join(', ') },
                { label: 'Passages', cell: (base) => base.passages },
              ]}
            />
          )}
        </>
      )}
    </Stack>
  );
}
