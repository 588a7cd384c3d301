import { useCallback, useSyncExternalStore } from 'react';

/**
 * The view ids, filled in by the view registry (views/index.ts) through declaration merging, as
 * TanStack Router's `Register` is: every view imports this module for `useRoute`, so this module
 * cannot import the registry that imports the views.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- views/index.ts merges `ids` in
export interface RegisteredViews {}
export type ViewId = RegisteredViews extends { ids: infer Id extends string } ? Id : string;

export interface Route {
  /** The hash's view as written; App shows the registered view of that id, or the first. */
  view: string;
  params: URLSearchParams;
}

function parseHash(hash: string): Route {
  const [view = '', query = ''] = hash.replace(/^#\/?/, '').split('?');
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
