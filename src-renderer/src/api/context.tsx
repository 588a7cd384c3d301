import { createContext, useContext, type ReactNode } from 'react';
import type { ApiClient } from '@shared/api';

const ClientContext = createContext<ApiClient | null>(null);

export function ClientProvider({ client, children }: { client: ApiClient; children: ReactNode }) {
  return <ClientContext.Provider value={client}>{children}</ClientContext.Provider>;
}

export function useClient(): ApiClient {
  const client = useContext(ClientContext);
  if (client === null) throw new Error('useClient outside ClientProvider');
  return client;
}
