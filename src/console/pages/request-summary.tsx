import { Card, SimpleGrid, Table, Text, Title } from '@mantine/core';
import { useApiGet } from '../api/use-api.ts';
import { EmptyState, PageState } from './page-state.tsx';

interface ModelRequests {
  readonly model: string;
  readonly requests: number;
  readonly errors: number;
  readonly refused: number;
  readonly mean_seconds: number;
  readonly max_seconds: number;
}

interface RequestSummaryAnswer {
  readonly last_hour: ModelRequests[];
  readonly last_day: ModelRequests[];
}

const sum = (rows: readonly ModelRequests[], read: (row: ModelRequests) => number) => rows.reduce((total, row) => total + read(row), 0);

/** Requests and failures over the last hour and day on this node (GET /admin/requests), and the slowest and most failing models. */
export function RequestSummary() {
  const summary = useApiGet<RequestSummaryAnswer>('/admin/requests');
  if (summary.data === undefined) return <PageState loading={summary.isPending} error={summary.error} label="Requests" />;
  const { last_hour: hour, last_day: day } = summary.data;
  const slowest = [...day].sort((left, right) => right.mean_seconds - left.mean_seconds).slice(0, 5);
  const failing = [...day].filter((row) => row.errors > 0).sort((left, right) => right.errors / right.requests - left.errors / left.requests);
  return (
    <>
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        {[
          { label: 'Last hour (this node)', rows: hour, id: 'hour' },
          { label: 'Last day (this node)', rows: day, id: 'day' },
        ].map((period) => (
          <Card withBorder key={period.id} aria-label={`Requests ${period.label}`}>
            <Text size="sm" c="dimmed">
              {period.label}
            </Text>
            <Text fw={700} size="xl" data-testid={`requests-${period.id}`}>
              {sum(period.rows, (row) => row.requests)} requests
            </Text>
            <Text size="sm" data-testid={`errors-${period.id}`}>
              {sum(period.rows, (row) => row.errors)} errors, {sum(period.rows, (row) => row.refused)} refused
            </Text>
          </Card>
        ))}
      </SimpleGrid>
      <Title order={3}>Slowest and most failing models (last day)</Title>
      {day.length === 0 ? (
        <EmptyState>No model calls on this node in the last day.</EmptyState>
      ) : (
        <Table.ScrollContainer minWidth={480}>
          <Table striped>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Model</Table.Th>
                <Table.Th>Requests</Table.Th>
                <Table.Th>Errors</Table.Th>
                <Table.Th>Mean time (s)</Table.Th>
                <Table.Th>Slowest (s)</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {[...new Set([...failing, ...slowest])].map((row) => (
                <Table.Tr key={row.model}>
                  <Table.Td>{row.model}</Table.Td>
                  <Table.Td>{row.requests}</Table.Td>
                  <Table.Td>{row.errors}</Table.Td>
                  <Table.Td>{row.mean_seconds}</Table.Td>
                  <Table.Td>{row.max_seconds}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </>
  );
}
