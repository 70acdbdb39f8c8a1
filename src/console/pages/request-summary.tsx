import { Card, SimpleGrid, Text, Title } from '@mantine/core';
import { countText } from '../api/count-text.ts';
import { useApiGet } from '../api/use-api.ts';
import { EmptyState, PageState } from './page-state.tsx';
import { ResponsiveTable } from './responsive-table.tsx';

interface ModelCounts {
  readonly model: string;
  readonly requests: number;
  readonly errors: number;
  readonly refused: number;
}

interface ModelRequests extends ModelCounts {
  readonly mean_seconds: number;
  readonly max_seconds: number;
}

interface RequestSummaryAnswer {
  readonly last_hour: ModelRequests[];
  readonly last_day: ModelRequests[];
  readonly last_30_days: ModelCounts[];
}

const sum = (rows: readonly ModelCounts[], read: (row: ModelCounts) => number) => rows.reduce((total, row) => total + read(row), 0);

/**
 * Requests and failures (GET /admin/requests): over the last hour and day as this node counted
 * them, over the last 30 days as every node stored them by the hour; and this node's slowest and
 * most failing models.
 */
export function RequestSummary() {
  const summary = useApiGet<RequestSummaryAnswer>('/admin/requests');
  if (summary.data === undefined) return <PageState loading={summary.isPending} error={summary.error} label="Requests" />;
  const { last_hour: hour, last_day: day, last_30_days: month } = summary.data;
  const slowest = [...day].sort((left, right) => right.mean_seconds - left.mean_seconds).slice(0, 5);
  const failing = [...day].filter((row) => row.errors > 0).sort((left, right) => right.errors / right.requests - left.errors / left.requests);
  return (
    <>
      <SimpleGrid cols={{ base: 1, sm: 3 }}>
        {[
          { label: 'Last hour (this node)', rows: hour, id: 'hour' },
          { label: 'Last day (this node)', rows: day, id: 'day' },
          { label: 'Last 30 days (all nodes)', rows: month, id: 'month' },
        ].map((period) => (
          <Card withBorder key={period.id} aria-label={`Requests ${period.label}`}>
            <Text size="sm" c="dimmed">
              {period.label}
            </Text>
            <Text fw={700} size="xl" data-testid={`requests-${period.id}`}>
              {countText(
                sum(period.rows, (row) => row.requests),
                'request',
                'requests',
              )}
            </Text>
            <Text size="sm" data-testid={`errors-${period.id}`}>
              {countText(
                sum(period.rows, (row) => row.errors),
                'error',
                'errors',
              )}
              , {sum(period.rows, (row) => row.refused)} refused
            </Text>
          </Card>
        ))}
      </SimpleGrid>
      <Title order={3}>Slowest and most failing models (last day)</Title>
      {day.length === 0 ? (
        <EmptyState>No model calls on this node in the last day.</EmptyState>
      ) : (
        <ResponsiveTable
          label="Slowest and most failing models"
          rows={[...new Set([...failing, ...slowest])]}
          rowKey={(row) => row.model}
          columns={[
            { label: 'Model', cell: (row) => row.model },
            { label: 'Requests', cell: (row) => row.requests },
            { label: 'Errors', cell: (row) => row.errors },
            { label: 'Mean time (s)', cell: (row) => row.mean_seconds },
            { label: 'Slowest (s)', cell: (row) => row.max_seconds },
          ]}
        />
      )}
    </>
  );
}
