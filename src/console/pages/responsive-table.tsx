import { Box, Card, Stack, Table, Text, useMatches } from '@mantine/core';
import type { ReactNode } from 'react';

interface TableColumn<Row> {
  readonly label: ReactNode;
  readonly cell: (row: Row) => ReactNode;
}

interface ResponsiveTableProps<Row> {
  /** The accessible name of the table (or of the list of cards). */
  readonly label: string;
  readonly columns: readonly TableColumn<Row>[];
  readonly rows: readonly Row[];
  readonly rowKey: (row: Row) => string;
}

/**
 * Rows as a table where the screen is wide, and as one card per row where it is not: there each
 * cell sits under its column's name, so every value and every control of a row is in view without
 * scrolling sideways. The layout is read at once (not after a first paint) so a narrow screen never
 * lays the table out first.
 */
export function ResponsiveTable<Row>({ label, columns, rows, rowKey }: ResponsiveTableProps<Row>) {
  const layout = useMatches({ base: 'cards', md: 'table' } as const, { getInitialValueInEffect: false });
  if (layout === 'cards') {
    return (
      <Stack gap="sm" component="ul" aria-label={label} m={0} p={0} style={{ listStyle: 'none' }}>
        {rows.map((row) => (
          <Card withBorder padding="sm" component="li" key={rowKey(row)}>
            <Box component="dl" m={0} style={{ display: 'grid', gridTemplateColumns: 'max-content minmax(0, 1fr)', columnGap: 12, rowGap: 6 }}>
              {columns.map((column, index) => {
                const value = column.cell(row);
                // A card leaves out what a table cell would leave blank.
                return value === null || value === undefined || value === false || value === '' ? null : (
                  <RecordField key={index} name={column.label} value={value} />
                );
              })}
            </Box>
          </Card>
        ))}
      </Stack>
    );
  }
  return (
    <Table.ScrollContainer minWidth={560}>
      <Table striped aria-label={label}>
        <Table.Thead>
          <Table.Tr>
            {columns.map((column, index) => (
              <Table.Th key={index}>{column.label}</Table.Th>
            ))}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((row) => (
            <Table.Tr key={rowKey(row)}>
              {columns.map((column, index) => (
                <Table.Td key={index}>{column.cell(row)}</Table.Td>
              ))}
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

function RecordField({ name, value }: { name: ReactNode; value: ReactNode }) {
  return (
    <>
      <Text component="dt" size="sm" c="dimmed">
        {name}
      </Text>
      <Text component="dd" size="sm" m={0} style={{ overflowWrap: 'anywhere' }}>
        {value}
      </Text>
    </>
  );
}
