import { Badge, Group, Progress, Stack, Text, Title } from '@mantine/core';
import { useSession } from '../api/session.tsx';
import { useApiGet, type ListAnswer } from '../api/use-api.ts';
import { DeploymentTable, type Deployment } from './deployment-table.tsx';
import { EmptyState, PageState } from './page-state.tsx';
import { ResponsiveTable } from './responsive-table.tsx';

interface ModelView {
  readonly id: string;
  readonly owned_by: string;
}

interface ModelFile {
  readonly uri: string;
  readonly path: string;
  readonly state: 'ready' | 'downloading' | 'failed' | 'missing';
  readonly downloaded_bytes: number;
  readonly total_bytes: number | null;
  readonly error: string | null;
}

/** The models this key may call; for operators also every deployment's health and the local model files. */
export function ModelsPage() {
  const { admin } = useSession();
  const models = useApiGet<ListAnswer<ModelView>>('/paas/v4/models');
  const deployments = useApiGet<ListAnswer<Deployment>>('/admin/deployments', { enabled: admin });
  const modelFiles = useApiGet<ListAnswer<ModelFile>>('/admin/model-files', { enabled: admin });
  return (
    <Stack>
      <Title order={2}>Models</Title>
      <PageState loading={models.isPending} error={models.error} label="Models" />
      <Group gap="xs">
        {models.data?.data.map((model) => (
          <Badge key={model.id} variant="outline" size="lg">
            {model.id}
          </Badge>
        ))}
      </Group>
      {admin && (
        <>
          <Title order={3}>Deployments and health</Title>
          <PageState loading={deployments.isPending} error={deployments.error} label="Deployments" />
          {deployments.data?.data.length === 0 && <EmptyState>No model has deployments in the configuration.</EmptyState>}
          {deployments.data !== undefined && deployments.data.data.length > 0 && <DeploymentTable deployments={deployments.data.data} />}
          <Title order={3}>Local model files</Title>
          {/* A server without model downloads answers 404 here: then there is nothing to show. */}
          {modelFiles.error !== null || modelFiles.data?.data.length === 0 ? (
            <EmptyState>No local model files.</EmptyState>
          ) : (
            <ModelFileTable files={modelFiles.data?.data ?? []} />
          )}
        </>
      )}
    </Stack>
  );
}

function ModelFileTable({ files }: { files: readonly ModelFile[] }) {
  return (
    <ResponsiveTable
      label="Local model files"
      rows={files}
      rowKey={(file) => file.uri}
      columns={[
        {
          label: 'File',
          cell: (file) => (
            <>
              <Text size="sm">{file.uri}</Text>
              <Text size="xs" c="dimmed">
                {file.path}
              </Text>
            </>
          ),
        },
        {
          label: 'State',
          cell: (file) => (
            <>
              <Badge color={file.state === 'ready' ? 'green' : file.state === 'failed' ? 'red' : 'blue'}>{file.state}</Badge>
              {file.error !== null && <Text size="xs">{file.error}</Text>}
            </>
          ),
        },
        {
          label: 'Progress',
          cell: (file) =>
            file.total_bytes !== null &&
            file.total_bytes > 0 && <Progress value={(100 * file.downloaded_bytes) / file.total_bytes} aria-label={`Download of ${file.uri}`} />,
        },
      ]}
    />
  );
}
