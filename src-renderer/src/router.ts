import { useCallback, useSyncExternalStore } from 'react';

export const VIEWS = [
  { id: 'datasets', label: 'Datasets' },
  { id: 'collections', label: 'Collections' },
  { id: 'experiments', label: 'Experiments' },
  { id: 'runs', label: 'Runs' },
  { id: 'compare', label: 'Compare' },
  { id: 'sweeps', label: 'Sweeps' },
  { id: 'models', label: 'Models' },
] as const;
export type ViewId = (typeof VIEWS)[number]['id'];

export interface Route {
  view: ViewId;
  params: URLSearchParams;
}

function parseHash(hash: string): Route {
  const [path = '', query = ''] = hash.replace(/^#\/?/, '').split('?');
  const view = VIEWS.find((v) => v.id === path)?.id ?? 'datasets';
  return { view, params: new URLSearchParams(query) };
}

function subscribe(onChange: () => void): () => void {
  window.addEventListener('hashchange', onChange);
  return () => window.removeEventListener('hashchange', onChange);
}

/**
 * The view and its filters live in the URL hash, so a view can be reopened (or linked) as it was,
 * and the page's `?token=` query stays untouched.
 */
export function useRoute(): [Route, (view: ViewId, params?: Record<string, string>) => void] {
  const hash = useSyncExternalStore(subscribe, () => window.location.hash);
  const navigate = useCallback((view: ViewId, params: Record<string, string> = {}) => {
    const query = new URLSearchParams(params).toString();
    window.location.hash = `#/${view}${query ? `?${query}` : ''}`;
  }, []);
  return [parseHash(hash), navigate];
}
