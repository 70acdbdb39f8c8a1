import { Alert, Button, Group, NumberInput, Select, Stack, TagsInput, Textarea } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { callJson, type ApiCallError } from '../api/api-client.ts';
import { useSession } from '../api/session.tsx';
import type { ApiKeyView } from './keys-page.tsx';

/** A key's policy as the admin API reads and writes it; parts this form has no field for are edited as JSON. */
export interface KeyPolicy {
  scope?: 'user' | 'admin';
  models?: string[];
  requestsPerMinute?: number;
  quota?: { period: 'day' | 'month'; calls?: number; tokens?: number };
  [other: string]: unknown;
}

type Count = number | string;

/**
 * Edits a policy and sends it whole with PATCH /admin/keys/{id}. The form checks nothing itself:
 * the API validates, and its own message is shown, so what is refused here is exactly what the
 * API refuses.
 */
export function KeyPolicyForm({ keyView, onSaved }: { keyView: ApiKeyView; onSaved: () => Promise<void> }) {
  const { key } = useSession();
  const { scope, models, requestsPerMinute, quota, ...rest } = keyView.policy ?? {};
  const [scopeValue, setScope] = useState<string>(scope ?? 'user');
  const [modelList, setModels] = useState<string[]>(models ?? []);
  const [rate, setRate] = useState<Count>(requestsPerMinute ?? '');
  const [period, setPeriod] = useState<string>(quota?.period ?? '');
  const [calls, setCalls] = useState<Count>(quota?.calls ?? '');
  const [tokens, setTokens] = useState<Count>(quota?.tokens ?? '');
  const [other, setOther] = useState(Object.keys(rest).length === 0 ? '' : JSON.stringify(rest, null, 2));
  const [formError, setFormError] = useState<string | undefined>();
  const save = useMutation<unknown, ApiCallError, object>({
    mutationFn: (policy) => callJson(key, `/admin/keys/${encodeURIComponent(keyView.id)}`, { method: 'PATCH', body: { policy } }),
    onSuccess: onSaved,
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setFormError(undefined);
    let extra: object = {};
    if (other.trim() !== '') {
      try {
        extra = JSON.parse(other) as object;
      } catch (error) {
        setFormError(`Other policy parts: not JSON (${(error as Error).message}).`);
        return;
      }
    }
    const policy: Record<string, unknown> = { ...extra };
    if (scopeValue === 'admin') policy['scope'] = 'admin';
    if (modelList.length > 0) policy['models'] = modelList;
    if (rate !== '') policy['requestsPerMinute'] = Number(rate);
    if (period !== '') {
      policy['quota'] = { period, ...(calls === '' ? {} : { calls: Number(calls) }), ...(tokens === '' ? {} : { tokens: Number(tokens) }) };
    }
    save.mutate(policy);
  };
  return (
    <form onSubmit={submit} aria-label="Key policy">
      <Stack>
        <Select label="Scope" data={['user', 'admin']} value={scopeValue} onChange={(value) => setScope(value ?? 'user')} allowDeselect={false} />
        <TagsInput label="Models this key may call (empty: all)" value={modelList} onChange={setModels} />
        <NumberInput label="Requests per minute" value={rate} onChange={setRate} allowDecimal={false} />
        <Group grow>
          <Select label="Quota period" data={['', 'day', 'month']} value={period} onChange={(value) => setPeriod(value ?? '')} />
          <NumberInput label="Quota calls" value={calls} onChange={setCalls} allowDecimal={false} />
          <NumberInput label="Quota tokens" value={tokens} onChange={setTokens} allowDecimal={false} />
        </Group>
        <Textarea
          label="Other policy parts (JSON: concurrency, credit)"
          value={other}
          onChange={(event) => setOther(event.currentTarget.value)}
          autosize
          minRows={2}
        />
        {(formError ?? save.error?.message) !== undefined && (
          <Alert color="red" role="alert" title="Policy refused">
            {formError ?? save.error?.message}
          </Alert>
        )}
        <Button type="submit" loading={save.isPending}>
          Save policy
        </Button>
      </Stack>
    </form>
  );
}
