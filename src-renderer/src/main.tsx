import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { ClientProvider } from './api/context';
import './styles.css';

const root = document.getElementById('root');
if (root === null) throw new Error('index.html has no #root');

// The client checks events against the API's schemas, and building those (zod) is 40-100 ms:
// imported apart, it runs in its own task after React's, not in one first-load task with it.
const { createClient } = await import('./api/client');

createRoot(root).render(
  <StrictMode>
    <ClientProvider client={createClient()}>
      <App />
    </ClientProvider>
  </StrictMode>,
);
