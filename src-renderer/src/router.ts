import { useCallback, useSyncExternalStore } from 'react';

export const VIEWS = [
  { id: 'datasets', label: 'Datasets' },
  { id: 'collections', label: 'Collections' },
  { id: 'experiments', label: 'Experiments' },
  { id: 'runs', label: 'Runs' },
  { id: 'compare', label: 'Compare' },
  { id: 'sweeps', label: 'Sweeps' },
  { id: 'reproduce', label: 'Reproduce' },
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

/** Components reading the route; told at once when this page navigates (see `useRoute`). */
const listeners = new Set<() => void>();

function subscribe(onChange: () => void): () => void {
  listeners.add(onChange);
  window.addEventListener('hashchange', onChange);
  return () => {
    listeners.delete(onChange);
    window.removeEventListener('hashchange', onChange);
  };
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
    // 'hashchange' only fires in a later task. Until then a controlled input changed in this
    // event (a filter checkbox) would be reset to its old value and flip back later, and a click
    // in between would be lost; telling the store now re-renders within the same event.
    for (const listener of listeners) listener();
  }, []);
  return [parseHash(hash), navigate];
}
