import { useQuery } from '@tanstack/react-query';
import { ApiCallError, callJson } from './api-client.ts';
import { useSession } from './session.tsx';

/** A GET with the signed-in key, cached by TanStack Query under its path (and the key). */
export function useApiGet<Answer>(path: string, options: { enabled?: boolean } = {}) {
  const { key } = useSession();
  return useQuery<Answer, ApiCallError>({
    queryKey: [key, path],
    queryFn: ({ signal }) => callJson<Answer>(key, path, { signal }),
    enabled: options.enabled ?? true,
  });
}

export interface ListAnswer<Item> {
  readonly object: 'list';
  readonly data: Item[];
}
