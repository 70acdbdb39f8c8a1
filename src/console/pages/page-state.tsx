import { Alert, Loader, Text } from '@mantine/core';
import type { ApiCallError } from '../api/api-client.ts';

/** What a page shows while its data loads, or when the server refused it (the API's own message). */
export function PageState({ loading, error, label }: { loading: boolean; error: ApiCallError | null; label: string }) {
  if (error !== null) {
    return (
      <Alert color="red" role="alert" title={`${label}: refused (${error.code})`}>
        {error.message}
      </Alert>
    );
  }
  if (loading) return <Loader size="sm" aria-label={`Loading ${label}`} />;
  return null;
}

export function EmptyState({ children }: { children: string }) {
  return (
    <Text c="dimmed" size="sm">
      {children}
    </Text>
  );
}
