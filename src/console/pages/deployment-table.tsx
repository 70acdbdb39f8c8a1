import { Badge } from '@mantine/core';
import type { DeploymentHealthObject } from '../../api/admin/deployments-admin.schema.ts';
import { ResponsiveTable } from './responsive-table.tsx';

/** One deployment as GET /admin/deployments reports it: the server's own schema type. */
export type Deployment = DeploymentHealthObject;

const stateColors: Readonly<Record<string, string>> = { healthy: 'green', 'cooling-down': 'orange', 'not-started': 'gray' };

/** Deployments with their health, most failing first. */
export function DeploymentTable({ deployments }: { deployments: readonly Deployment[] }) {
  const sorted = [...deployments].sort((left, right) => right.consecutive_failures - left.consecutive_failures);
  return (
    <ResponsiveTable
      label="Deployments"
      rows={sorted}
      rowKey={(deployment) => `${deployment.model}/${deployment.deployment}`}
      columns={[
        { label: 'Model', cell: (deployment) => deployment.model },
        { label: 'Deployment', cell: (deployment) => deployment.deployment },
        { label: 'Backend', cell: (deployment) => deployment.backend },
        { label: 'State', cell: (deployment) => <Badge color={stateColors[deployment.state] ?? 'red'}>{deployment.state}</Badge> },
        { label: 'In flight', cell: (deployment) => deployment.in_flight },
        { label: 'Failures in a row', cell: (deployment) => deployment.consecutive_failures },
        { label: 'Last error', cell: (deployment) => deployment.last_error ?? '' },
      ]}
    />
  );
}
