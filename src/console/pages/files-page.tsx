import { Badge, Stack, Table, Title } from '@mantine/core';
import { useSession } from '../api/session.tsx';
import { useApiGet, type ListAnswer } from '../api/use-api.ts';
import { EmptyState, PageState } from './page-state.tsx';

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
        <Table.ScrollContainer minWidth={480}>
          <Table striped>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>File</Table.Th>
                <Table.Th>Purpose</Table.Th>
                <Table.Th>Bytes</Table.Th>
                <Table.Th>Uploaded</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {files.data.data.map((file) => (
                <Table.Tr key={file.id}>
                  <Table.Td>{file.filename}</Table.Td>
                  <Table.Td>
                    <Badge variant="light">{file.purpose}</Badge>
                  </Table.Td>
                  <Table.Td>{file.bytes}</Table.Td>
                  <Table.Td>{new Date(file.created_at * 1000).toISOString().slice(0, 10)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {admin && (
        <>
          <Title order={3}>Knowledge bases (every key)</Title>
          <PageState loading={knowledge.isPending} error={knowledge.error} label="Knowledge bases" />
          {knowledge.data !== undefined && knowledge.data.data.length === 0 && <EmptyState>No knowledge bases yet.</EmptyState>}
          {knowledge.data !== undefined && knowledge.data.data.length > 0 && (
            <Table.ScrollContainer minWidth={480}>
              <Table striped>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Knowledge base</Table.Th>
                    <Table.Th>Key</Table.Th>
                    <Table.Th>Files</Table.Th>
                    <Table.Th>Passages</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {knowledge.data.data.map((base) => (
                    <Table.Tr key={`${base.owner_key_id}/${base.knowledge_id}`}>
                      <Table.Td>{base.knowledge_id}</Table.Td>
                      <Table.Td>{base.owner_key_id.slice(0, 12)}</Table.Td>
                      <Table.Td>{base.files.map((file) => `${file.filename} (${file.passages})`).join(', ')}</Table.Td>
                      <Table.Td>{base.passages}</Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          )}
        </>
      )}
    </Stack>
  );
}
