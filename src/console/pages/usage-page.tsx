import { BarChart } from '@mantine/charts';
import { Alert, Button, Group, SimpleGrid, SegmentedControl, Stack, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import { queryString } from '../api/api-client.ts';
import { useSession } from '../api/session.tsx';
import { dayMs, utcDay, type UsageAnswer } from '../api/usage-types.ts';
import { useApiGet } from '../api/use-api.ts';
import { usageGroups, type UsageGrouping } from './usage-groups.ts';
import { useUsageExport } from './usage-export.ts';
import { EmptyState, PageState } from './page-state.tsx';
import { ResponsiveTable } from './responsive-table.tsx';

/** Usage and spend over a range of UTC days, grouped by day, key or model, as a chart, a table and CSV. */
export function UsagePage() {
  const [from, setFrom] = useState(() => utcDay(Date.now() - 29 * dayMs));
  const [to, setTo] = useState(() => utcDay(Date.now()));
  const [by, setBy] = useState<UsageGrouping>('day');
  const usage = useApiGet<UsageAnswer>(`/admin/usage${queryString({ from, to })}`);
  const groups = usageGroups(usage.data?.data ?? [], by);
  const { admin } = useSession();
  const exportCsv = useUsageExport();
  return (
    <Stack>
      <Title order={2}>Usage &amp; spend</Title>
      <Group align="end">
        <TextInput type="date" label="From (UTC day)" value={from} onChange={(event) => setFrom(event.currentTarget.value)} />
        <TextInput type="date" label="To (UTC day)" value={to} onChange={(event) => setTo(event.currentTarget.value)} />
        <SegmentedControl
          aria-label="Group by"
          value={by}
          onChange={(value) => setBy(value as UsageGrouping)}
          data={[
            { value: 'day', label: 'Day' },
            { value: 'key', label: 'Key' },
            { value: 'model', label: 'Model' },
            { value: 'endpoint', label: 'Endpoint' },
          ]}
        />
        {admin && (
          <Button variant="default" onClick={() => void exportCsv.run(by, from, to)} loading={exportCsv.busy}>
            Export CSV
          </Button>
        )}
      </Group>
      {exportCsv.error !== undefined && (
        <Alert color="red" role="alert" title="Export refused">
          {exportCsv.error}
        </Alert>
      )}
      <PageState loading={usage.isPending} error={usage.error} label="Usage" />
      {usage.data !== undefined && groups.length === 0 && <EmptyState>No usage in this range.</EmptyState>}
      {groups.length > 0 && (
        <>
          <SimpleGrid cols={{ base: 1, md: 2 }}>
            <BarChart
              h={220}
              data={groups.map((group) => ({ name: group.name, calls: group.calls }))}
              dataKey="name"
              series={[{ name: 'calls', color: 'blue.6' }]}
              withLegend
              aria-label="Calls chart"
            />
            <BarChart
              h={220}
              type="stacked"
              data={groups.map((group) => ({ name: group.name, prompt: group.promptTokens, completion: group.completionTokens }))}
              dataKey="name"
              series={[
                { name: 'prompt', color: 'teal.6' },
                { name: 'completion', color: 'grape.6' },
              ]}
              withLegend
              aria-label="Tokens chart"
            />
          </SimpleGrid>
          <ResponsiveTable
            label={`Usage by ${by}`}
            rows={groups}
            rowKey={(group) => group.name}
            columns={[
              { label: by, cell: (group) => group.name },
              { label: 'Calls', cell: (group) => group.calls },
              { label: 'Prompt tokens', cell: (group) => group.promptTokens },
              { label: 'Completion tokens', cell: (group) => group.completionTokens },
              { label: `Spend (${usage.data?.currency ?? ''})`, cell: (group) => group.spend },
            ]}
          />
        </>
      )}
    </Stack>
  );
}
