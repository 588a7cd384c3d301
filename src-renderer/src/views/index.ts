import type { ComponentType } from 'react';
import { CollectionsView } from './collections/CollectionsView';
import { CompareView } from './compare/CompareView';
import { DatasetsView } from './datasets/DatasetsView';
import { ExperimentsView } from './experiments/ExperimentsView';
import { ModelsView } from './models/ModelsView';
import { ReproduceView } from './reproduce/ReproduceView';
import { RunsView } from './runs/RunsView';
import { SweepsView } from './sweeps/SweepsView';

interface ViewEntry {
  /** Its place in the URL (`#/<id>`) and the id `navigate` takes. */
  id: string;
  /** Its name in the sidebar. */
  label: string;
  component: ComponentType;
}

/**
 * The app's views in sidebar order; the first is the one an unknown or empty hash shows. A view is
 * its folder and one line here: App renders the entry the route names.
 */
export const VIEWS = [
  { id: 'datasets', label: 'Datasets', component: DatasetsView },
  { id: 'collections', label: 'Collections', component: CollectionsView },
  { id: 'experiments', label: 'Experiments', component: ExperimentsView },
  { id: 'runs', label: 'Runs', component: RunsView },
  { id: 'compare', label: 'Compare', component: CompareView },
  { id: 'sweeps', label: 'Sweeps', component: SweepsView },
  { id: 'reproduce', label: 'Reproduce', component: ReproduceView },
  { id: 'models', label: 'Models', component: ModelsView },
] as const satisfies readonly ViewEntry[];

// The views' ids, for the router's `ViewId` (see RegisteredViews there).
declare module '../router' {
  interface RegisteredViews {
    ids: (typeof VIEWS)[number]['id'];
  }
}
