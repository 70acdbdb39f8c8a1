import { Select } from '@mantine/core';
import { useApiGet, type ListAnswer } from '../api/use-api.ts';

/** The models the signed-in key may call (GET /models answers per the key's policy), or any name typed in. */
export function ModelSelect({ value, onChange, label = 'Model' }: { value: string; onChange: (model: string) => void; label?: string }) {
  const models = useApiGet<ListAnswer<{ id: string }>>('/paas/v4/models');
  const names = models.data?.data.map((model) => model.id) ?? [];
  return (
    <Select
      label={label}
      data={names.includes(value) || value === '' ? names : [value, ...names]}
      value={value}
      onChange={(next) => onChange(next ?? '')}
      searchable
    />
  );
}
