import { Alert, Code } from '@mantine/core';

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

export function JsonBlock({ value }: { value: unknown }) {
  return (
    <Code block style={{ maxHeight: 480, overflow: 'auto' }}>
      {JSON.stringify(value, null, 2)}
    </Code>
  );
}
