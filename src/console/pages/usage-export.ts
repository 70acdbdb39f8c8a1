import { useState } from 'react';
import { callRaw, queryString } from '../api/api-client.ts';
import { useSession } from '../api/session.tsx';

/**
 * Downloads the usage report as CSV from GET /admin/usage/export: the server writes it with the
 * formatter of `model-platform usage report --format csv`, so both give the same file.
 */
export function useUsageExport() {
  const { key } = useSession();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const run = async (by: string, from: string, to: string) => {
    setBusy(true);
    setError(undefined);
    try {
      const response = await callRaw(key, `/admin/usage/export${queryString({ by, from, to })}`);
      const link = document.createElement('a');
      link.href = URL.createObjectURL(await response.blob());
      link.download = `usage-${by}-${from}-${to}.csv`;
      link.click();
      URL.revokeObjectURL(link.href);
    } catch (caught) {
      setError((caught as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return { run, busy, error };
}
