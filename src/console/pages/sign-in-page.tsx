import { Alert, Button, Center, Paper, PasswordInput, Stack, Text, Title } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { useSessionState } from '../api/session.tsx';

/** Sign-in with an API key `<id>.<secret>`, kept in this tab's session storage only. */
export function SignInPage() {
  const { signIn } = useSessionState();
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await signIn(key);
    } catch (caught) {
      setError((caught as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Center mih="100vh" p="md">
      <Paper withBorder p="xl" w="100%" maw={420} component="main">
        <form onSubmit={submit}>
          <Stack>
            <Title order={1} size="h3">
              model-platform console
            </Title>
            <Text size="sm" c="dimmed">
              Sign in with an API key. It stays in this browser tab only and is sent with every call the console makes.
            </Text>
            <PasswordInput label="API key" placeholder="<id>.<secret>" value={key} onChange={(event) => setKey(event.currentTarget.value)} required autoFocus />
            {error !== undefined && (
              <Alert color="red" role="alert" title="Sign-in refused">
                {error}
              </Alert>
            )}
            <Button type="submit" loading={busy}>
              Sign in
            </Button>
          </Stack>
        </form>
      </Paper>
    </Center>
  );
}
