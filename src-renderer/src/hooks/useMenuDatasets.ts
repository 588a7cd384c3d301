import { createContext, useCallback, useContext, useEffect, useState } from 'react';
import type { ErrorPayload } from '@shared/errors';
import { useClient } from '../api/context';
import { useRoute } from '../router';

/** A file the desktop menu could not open, until dismissed. */
export interface MenuDatasets {
  error: ErrorPayload | null;
  dismiss: () => void;
}

/** App's `useMenuDatasets`, for the Datasets view to show (views take no props). */
export const MenuDatasetsContext = createContext<MenuDatasets>({ error: null, dismiss: () => {} });

export function useMenuDatasetsError(): MenuDatasets {
  return useContext(MenuDatasetsContext);
}

/**
 * The desktop menu (File → Open Dataset…, Open Recent) opens files in the main process and
 * announces the result as events. Whatever view is showing, the app then shows the Datasets view:
 * with the opened dataset selected, or with the error that says what is wrong with the file.
 * In browser mode nothing sends these events and this does nothing.
 */
export function useMenuDatasets(): MenuDatasets {
  const client = useClient();
  const [, navigate] = useRoute();
  const [error, setError] = useState<ErrorPayload | null>(null);

  useEffect(
    () =>
      client.onEvent((event) => {
        if (event.type === 'dataset-opened') {
          setError(null);
          navigate('datasets', { dataset: event.datasetId });
        } else if (event.type === 'dataset-open-failed') {
          setError(event.error);
          navigate('datasets');
        }
      }),
    [client, navigate],
  );

  const dismiss = useCallback(() => setError(null), []);
  return { error, dismiss };
}
