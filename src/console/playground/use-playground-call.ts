import { useState } from 'react';
import { callJson } from '../api/api-client.ts';
import { useSession } from '../api/session.tsx';

/** One playground call at a time: its answer, its error (the API's message) and whether it runs. */
export function usePlaygroundCall<Answer>() {
  const { key } = useSession();
  const [answer, setAnswer] = useState<Answer | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const run = async (path: string, body: object | FormData) => {
    setBusy(true);
    setError(undefined);
    setAnswer(undefined);
    try {
      setAnswer(await callJson<Answer>(key, path, { body }));
    } catch (caught) {
      setError((caught as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return { answer, error, busy, run };
}
