import { Alert, Badge, Button, Code, Group, Modal, Stack, TextInput, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { callJson, type ApiCallError } from '../api/api-client.ts';
import { useSession } from '../api/session.tsx';
import { useApiGet, type ListAnswer } from '../api/use-api.ts';
import { KeyPolicyForm, type KeyPolicy } from './key-policy-form.tsx';
import { PageState } from './page-state.tsx';
import { ResponsiveTable } from './responsive-table.tsx';

export interface ApiKeyView {
  readonly id: string;
  readonly name: string | null;
  readonly created_at: number;
  readonly revoked_at: number | null;
  readonly scope: 'user' | 'admin';
  readonly policy: KeyPolicy | null;
}

/** Operators' keys: list, create (the secret shown once), revoke, and each key's policy. */
export function KeysPage() {
  const { key } = useSession();
  const queryClient = useQueryClient();
  const keys = useApiGet<ListAnswer<ApiKeyView>>('/admin/keys');
  const [name, setName] = useState('');
  const [created, setCreated] = useState<string | undefined>();
  const [editing, setEditing] = useState<ApiKeyView | undefined>();
  const refresh = () => queryClient.invalidateQueries({ queryKey: [key, '/admin/keys'] });
  const create = useMutation<{ key: string }, ApiCallError, string>({
    mutationFn: (keyName) => callJson(key, '/admin/keys', { body: keyName === '' ? {} : { name: keyName } }),
    onSuccess: async (answer) => {
      setCreated(answer.key);
      setName('');
      await refresh();
    },
  });
  const revoke = useMutation<unknown, ApiCallError, string>({
    mutationFn: (id) => callJson(key, `/admin/keys/${encodeURIComponent(id)}`, { method: 'DELETE' }),
    onSuccess: refresh,
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate(name.trim());
  };
  return (
    <Stack>
      <Title order={2}>Keys</Title>
      <form onSubmit={submit} aria-label="Create a key">
        <Group align="end">
          <TextInput label="New key name" value={name} onChange={(event) => setName(event.currentTarget.value)} maxLength={200} />
          <Button type="submit" loading={create.isPending}>
            Create key
          </Button>
        </Group>
      </form>
      {create.error !== null && (
        <Alert color="red" role="alert">
          {create.error.message}
        </Alert>
      )}
      {revoke.error !== null && (
        <Alert color="red" role="alert">
          {revoke.error.message}
        </Alert>
      )}
      <PageState loading={keys.isPending} error={keys.error} label="Keys" />
      {keys.data !== undefined && (
        <ResponsiveTable
          label="Keys"
          rows={keys.data.data}
          rowKey={(view) => view.id}
          columns={[
            { label: 'Name', cell: (view) => view.name ?? '(no name)' },
            { label: 'Id', cell: (view) => <Code>{view.id.slice(0, 12)}</Code> },
            { label: 'Scope', cell: (view) => view.scope },
            { label: 'Created', cell: (view) => new Date(view.created_at * 1000).toISOString().slice(0, 16).replace('T', ' ') },
            {
              label: 'State',
              cell: (view) => (view.revoked_at === null ? <Badge color="green">active</Badge> : <Badge color="gray">revoked</Badge>),
            },
            {
              label: 'Actions',
              cell: (view) =>
                view.revoked_at === null && (
                  <Group gap="xs" wrap="nowrap">
                    <Button size="xs" variant="default" onClick={() => setEditing(view)} aria-label={`Edit policy of ${view.name ?? view.id}`}>
                      Policy
                    </Button>
                    <Button size="xs" color="red" variant="light" onClick={() => revoke.mutate(view.id)} aria-label={`Revoke ${view.name ?? view.id}`}>
                      Revoke
                    </Button>
                  </Group>
                ),
            },
          ]}
        />
      )}
      <Modal opened={created !== undefined} onClose={() => setCreated(undefined)} title="New API key">
        <Stack>
          <Alert color="yellow">Copy the key now: it is shown only once.</Alert>
          <Code block data-testid="created-key">
            {created}
          </Code>
          <Button onClick={() => setCreated(undefined)}>Done</Button>
        </Stack>
      </Modal>
      <Modal opened={editing !== undefined} onClose={() => setEditing(undefined)} title={`Policy of ${editing?.name ?? editing?.id ?? ''}`} size="lg">
        {editing !== undefined && (
          <KeyPolicyForm
            keyView={editing}
            onSaved={async () => {
              setEditing(undefined);
              await refresh();
            }}
          />
        )}
      </Modal>
    </Stack>
  );
}
