import { useState } from 'react';
import { Badge, Card, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { countText } from '../api/count-text.ts';
import { sumSpend } from '../api/spend.ts';
import { dayMs, utcDay, type UsageAnswer, type UsageRow } from '../api/usage-types.ts';
import { useApiGet, type ListAnswer } from '../api/use-api.ts';
import { useSession } from '../api/session.tsx';
import { DeploymentTable, type Deployment } from './deployment-table.tsx';
import { EmptyState, PageState } from './page-state.tsx';
import { RequestSummary } from './request-summary.tsx';
import { ResponsiveTable } from './responsive-table.tsx';

const periods = [
  { label: 'Today', days: 1 },
  { label: 'Last 7 days', days: 7 },
  { label: 'Last 30 days', days: 30 },
];

/** Calls, tokens and spend by period, the busiest models, and (for operators) requests, failures and the deployments' health. */
export function OverviewPage() {
  const { admin } = useSession();
  // The periods end at the time the page was opened; reading it again on each render would move them.
  const [now] = useState(() => Date.now());
  const usage = useApiGet<UsageAnswer>(`/admin/usage?from=${utcDay(now - 29 * dayMs)}&to=${utcDay(now)}`);
  const deployments = useApiGet<ListAnswer<Deployment>>('/admin/deployments', { enabled: admin });
  const rows = usage.data?.data ?? [];
  return (
    <Stack>
      <Title order={2}>Overview</Title>
      <PageState loading={usage.isPending} error={usage.error} label="Usage" />
      {usage.data !== undefined && (
        <SimpleGrid cols={{ base: 1, sm: 3 }}>
          {periods.map((period) => {
            const since = utcDay(now - (period.days - 1) * dayMs);
            const inPeriod = rows.filter((row) => row.date >= since);
            return (
              <Card withBorder key={period.label} aria-label={`Usage ${period.label}`}>
                <Text size="sm" c="dimmed">
                  {period.label}
                </Text>
                <Text fw={700} size="xl" data-testid={`calls-${period.days}`}>
                  {countText(
                    sum(inPeriod, (row) => row.calls),
                    'call',
                    'calls',
                  )}
                </Text>
                <Text size="sm" data-testid={`tokens-${period.days}`}>
                  {countText(
                    sum(inPeriod, (row) => row.total_tokens),
                    'token',
                    'tokens',
                  )}
                </Text>
                <Text size="sm" data-testid={`spend-${period.days}`}>
                  {sumSpend(inPeriod)} {usage.data.currency} spent
                </Text>
              </Card>
            );
          })}
        </SimpleGrid>
      )}
      {admin && <RequestSummary />}
      <Title order={3}>Busiest models (30 days)</Title>
      {usage.data !== undefined && rows.length === 0 && <EmptyState>No usage recorded in the last 30 days.</EmptyState>}
      {rows.length > 0 && <ModelTable rows={rows} currency={usage.data?.currency ?? ''} />}
      {admin && (
        <>
          <Title order={3}>Deployments</Title>
          <PageState loading={deployments.isPending} error={deployments.error} label="Deployments" />
          {deployments.data?.data.length === 0 && <EmptyState>No model has deployments in the configuration.</EmptyState>}
          {deployments.data !== undefined && deployments.data.data.length > 0 && <DeploymentTable deployments={deployments.data.data} />}
        </>
      )}
    </Stack>
  );
}

function ModelTable({ rows, currency }: { rows: readonly UsageRow[]; currency: string }) {
  const byModel = new Map<string, UsageRow[]>();
  for (const row of rows) byModel.set(row.model, [...(byModel.get(row.model) ?? []), row]);
  const models = [...byModel.entries()].sort((left, right) => sum(right[1], (row) => row.calls) - sum(left[1], (row) => row.calls));
  return (
    <ResponsiveTable
      label="Busiest models"
      rows={models}
      rowKey={([model]) => model}
      columns={[
        {
          label: 'Model',
          cell: ([model]) => (
            <Badge variant="light" tt="none">
              {model}
            </Badge>
          ),
        },
        { label: 'Calls', cell: ([, modelRows]) => sum(modelRows, (row) => row.calls) },
        { label: 'Tokens', cell: ([, modelRows]) => sum(modelRows, (row) => row.total_tokens) },
        { label: `Spend (${currency})`, cell: ([, modelRows]) => sumSpend(modelRows) },
      ]}
    />
  );
}

function sum<Row>(rows: readonly Row[], read: (row: Row) => number): number {
  return rows.reduce((total, row) => total + read(row), 0);
}
