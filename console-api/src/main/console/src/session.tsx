// Who is logged in, and the namespace the pages work in.
import { createContext, useContext } from 'react';
import type { SessionUser } from './api';

export interface Session {
  user: SessionUser;
  namespace: string;
  setNamespace: (ns: string) => void;
  logout: () => void;
}

export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const s = useContext(SessionContext);
  if (!s) throw new Error('no session');
  return s;
}
