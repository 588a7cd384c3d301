import { lazy, type ComponentType, type LazyExoticComponent } from 'react';

/** A view whose code is its own chunk, fetched and parsed when the view is first shown. */
export type LazyView = LazyExoticComponent<ComponentType> & {
  /** Fetches the chunk (once) and resolves to the view's component. */
  load: () => Promise<ComponentType>;
};

/**
 * The first load parses the shell and the view it shows, not every view's code (the charts,
 * the tables, Compare's statistics): one 2.4 MB script was one main-thread task of 150-500 ms.
 */
function lazyView<Name extends string>(
  importView: () => Promise<Record<Name, ComponentType>>,
  name: Name,
): LazyView {
  let loaded: Promise<ComponentType> | undefined;
  const load = (): Promise<ComponentType> =>
    (loaded ??= importView().then((module) => module[name]));
  return Object.assign(
    lazy(async () => ({ default: await load() })),
    { load },
  );
}

interface ViewEntry {
  /** Its place in the URL (`#/<id>`) and the id `navigate` takes. */
  id: string;
  /** Its name in the sidebar. */
  label: string;
  component: LazyView;
}

/**
 * The app's views in sidebar order; the first is the one an unknown or empty hash shows. A view is
 * its folder and one line here: App renders the entry the route names.
 */
export const VIEWS = [
  {
    id: 'datasets',
    label: 'Datasets',
    component: lazyView(() => import('./datasets/DatasetsView'), 'DatasetsView'),
  },
  {
    id: 'collections',
    label: 'Collections',
    component: lazyView(() => import('./collections/CollectionsView'), 'CollectionsView'),
  },
  {
    id: 'experiments',
    label: 'Experiments',
    component: lazyView(() => import('./experiments/ExperimentsView'), 'ExperimentsView'),
  },
  { id: 'runs', label: 'Runs', component: lazyView(() => import('./runs/RunsView'), 'RunsView') },
  {
    id: 'compare',
    label: 'Compare',
    component: lazyView(() => import('./compare/CompareView'), 'CompareView'),
  },
  {
    id: 'sweeps',
    label: 'Sweeps',
    component: lazyView(() => import('./sweeps/SweepsView'), 'SweepsView'),
  },
  {
    id: 'reproduce',
    label: 'Reproduce',
    component: lazyView(() => import('./reproduce/ReproduceView'), 'ReproduceView'),
  },
  {
    id: 'models',
    label: 'Models',
    component: lazyView(() => import('./models/ModelsView'), 'ModelsView'),
  },
] as const satisfies readonly ViewEntry[];

// The views' ids, for the router's `ViewId` (see RegisteredViews there).
declare module '../router' {
  interface RegisteredViews {
    ids: (typeof VIEWS)[number]['id'];
  }
}
