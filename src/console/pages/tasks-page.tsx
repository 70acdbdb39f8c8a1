import { Alert, Badge, Button, Group, Image, Select, Stack, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import type { TaskListItem } from '../../api/admin/tasks-admin.schema.ts';
import { queryString } from '../api/api-client.ts';
import { useSession } from '../api/session.tsx';
import { useApiGet } from '../api/use-api.ts';
import { EmptyState, PageState } from './page-state.tsx';
import { ResponsiveTable } from './responsive-table.tsx';

/** One task as GET /admin/tasks lists it: the server's own schema type. */
type TaskItem = TaskListItem;

interface TaskPage {
  readonly data: TaskItem[];
  readonly has_more: boolean;
  readonly next_cursor: string | null;
}

const statusColors = { PROCESSING: 'blue', SUCCESS: 'green', FAIL: 'red' } as const;

/** Async tasks from GET /admin/tasks, newest first, a page at a time; the server scopes a key holder to its own. */
export function TasksPage() {
  const { admin } = useSession();
  const [keyId, setKeyId] = useState('');
  const [status, setStatus] = useState<string | null>(null);
  const [kind, setKind] = useState<string | null>(null);
  // The cursors of the pages before this one, to go back.
  const [cursors, setCursors] = useState<string[]>([]);
  const after = cursors.at(-1);
  const tasks = useApiGet<TaskPage>(`/admin/tasks${queryString({ key_id: keyId.trim(), status: status ?? undefined, kind: kind ?? undefined, after })}`);
  const filterChanged =
    <Value,>(set: (value: Value) => void) =>
    (value: Value) => {
      set(value);
      setCursors([]);
    };
  return (
    <Stack>
      <Title order={2}>Tasks</Title>
      <Group align="end">
        {admin && <TextInput label="Key id" value={keyId} onChange={(event) => filterChanged(setKeyId)(event.currentTarget.value)} />}
        <Select label="Status" data={['PROCESSING', 'SUCCESS', 'FAIL']} value={status} onChange={filterChanged(setStatus)} clearable />
        <Select label="Kind" data={['image', 'video', 'chat']} value={kind} onChange={filterChanged(setKind)} clearable />
      </Group>
      <PageState loading={tasks.isPending} error={tasks.error} label="Tasks" />
      {tasks.data !== undefined && tasks.data.data.length === 0 && <EmptyState>No tasks match.</EmptyState>}
      {tasks.data !== undefined && tasks.data.data.length > 0 && (
        <ResponsiveTable
          label="Tasks"
          rows={tasks.data.data}
          rowKey={(task) => task.id}
          columns={[
            { label: 'Created', cell: (task) => new Date(task.created_at * 1000).toISOString().slice(0, 19).replace('T', ' ') },
            { label: 'Kind', cell: (task) => task.kind },
            { label: 'Model', cell: (task) => task.model },
            ...(admin ? [{ label: 'Key', cell: (task: TaskItem) => task.key_id.slice(0, 12) }] : []),
            {
              label: 'Status',
              cell: (task) => (
                <Badge color={statusColors[task.task_status]} styles={{ root: { flexShrink: 0, overflow: 'visible' }, label: { overflow: 'visible' } }}>
                  {task.task_status}
                </Badge>
              ),
            },
            { label: 'Attempts', cell: (task) => task.attempts },
            { label: 'Result', cell: (task) => <TaskResult task={task} /> },
          ]}
        />
      )}
      <Group>
        <Button variant="default" disabled={cursors.length === 0} onClick={() => setCursors(cursors.slice(0, -1))}>
          Newer
        </Button>
        <Button
          variant="default"
          disabled={tasks.data?.next_cursor == null}
          onClick={() => tasks.data?.next_cursor != null && setCursors([...cursors, tasks.data.next_cursor])}
        >
          Older
        </Button>
      </Group>
    </Stack>
  );
}

function TaskResult({ task }: { task: TaskItem }) {
  return (
    <>
      {task.error !== null && (
        <Alert color="red" p="xs">
          {task.error.code}: {task.error.message}
        </Alert>
      )}
      <Group gap="xs">
        {task.media.map((media) =>
          media.type === 'image' ? (
            <Image key={media.url} src={media.url} alt={`Image of task ${task.id}`} w={96} h={96} fit="cover" radius="sm" />
          ) : (
            <video key={media.url} src={media.url} poster={media.cover_image_url} controls width={160} aria-label={`Video of task ${task.id}`} />
          ),
        )}
      </Group>
    </>
  );
}
