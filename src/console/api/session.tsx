import { createContext, useCallback, useContext, useMemo, useState, type ReactNode } from 'react';
import { ApiCallError, callJson } from './api-client.ts';

/** Who is signed in: the key (kept in this tab's session storage only) and whether the server gives it the admin API. */
export interface Session {
  readonly key: string;
  readonly keyId: string;
  readonly admin: boolean;
}

interface SessionState {
  readonly session: Session | undefined;
  signIn(key: string): Promise<void>;
  signOut(): void;
}

const storageName = 'model-platform.console.session';
const SessionContext = createContext<SessionState | undefined>(undefined);

/**
 * Signs in by asking the server, never by reading the key: the model list proves the key valid,
 * and the key's own admin record answers only when the server grants it the admin scope.
 */
async function probe(key: string): Promise<Session> {
  await callJson(key, '/paas/v4/models');
  const keyId = key.split('.')[0] ?? '';
  try {
    await callJson(key, `/admin/keys/${encodeURIComponent(keyId)}`);
    return { key, keyId, admin: true };
  } catch (error) {
    if (error instanceof ApiCallError && error.code === '1220') return { key, keyId, admin: false };
    throw error;
  }
}

function stored(): Session | undefined {
  const text = sessionStorage.getItem(storageName);
  if (text === null) return undefined;
  try {
    return JSON.parse(text) as Session;
  } catch {
    sessionStorage.removeItem(storageName);
    return undefined;
  }
}

export function SessionProvider({ children }: { children: ReactNode }) {
  const [session, setSession] = useState<Session | undefined>(stored);
  const signIn = useCallback(async (key: string) => {
    const next = await probe(key.trim());
    sessionStorage.setItem(storageName, JSON.stringify(next));
    setSession(next);
  }, []);
  const signOut = useCallback(() => {
    sessionStorage.removeItem(storageName);
    setSession(undefined);
  }, []);
  const value = useMemo(() => ({ session, signIn, signOut }), [session, signIn, signOut]);
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSessionState(): SessionState {
  const state = useContext(SessionContext);
  if (state === undefined) throw new Error('useSessionState outside SessionProvider');
  return state;
}

/** The signed-in session; pages under the shell are shown only with one. */
export function useSession(): Session {
  const { session } = useSessionState();
  if (session === undefined) throw new Error('useSession without a signed-in key');
  return session;
}
