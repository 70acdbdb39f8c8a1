import { Alert } from '@mantine/core';

/** The outcome of one playground call: the API's refusal, or the answer. */
export function RequestResult({ error, children }: { error: string | undefined; children: React.ReactNode }) {
  if (error !== undefined) {
    return (
      <Alert color="red" role="alert" title="Refused">
        {error}
      </Alert>
    );
  }
  return <>{children}</>;
}
