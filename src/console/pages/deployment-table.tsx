import { Badge, Table } from '@mantine/core';
import type { DeploymentHealthObject } from '../../api/admin/deployments-admin.schema.ts';

/** One deployment as GET /admin/deployments reports it: the server's own schema type. */
export type Deployment = DeploymentHealthObject;

const stateColors: Readonly<Record<string, string>> = { healthy: 'green', 'cooling-down': 'orange', 'not-started': 'gray' };

/** Deployments with their health, most failing first. */
export function DeploymentTable({ deployments }: { deployments: readonly Deployment[] }) {
  const sorted = [...deployments].sort((left, right) => right.consecutive_failures - left.consecutive_failures);
  return (
    <Table.ScrollContainer minWidth={560}>
      <Table striped>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Model</Table.Th>
            <Table.Th>Deployment</Table.Th>
            <Table.Th>Backend</Table.Th>
            <Table.Th>State</Table.Th>
            <Table.Th>In flight</Table.Th>
            <Table.Th>Failures in a row</Table.Th>
            <Table.Th>Last error</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {sorted.map((deployment) => (
            <Table.Tr key={`${deployment.model}/${deployment.deployment}`}>
              <Table.Td>{deployment.model}</Table.Td>
              <Table.Td>{deployment.deployment}</Table.Td>
              <Table.Td>{deployment.backend}</Table.Td>
              <Table.Td>
                <Badge color={stateColors[deployment.state] ?? 'red'}>{deployment.state}</Badge>
              </Table.Td>
              <Table.Td>{deployment.in_flight}</Table.Td>
              <Table.Td>{deployment.consecutive_failures}</Table.Td>
              <Table.Td>{deployment.last_error ?? ''}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
