import { useApi } from './hooks/useApi';
import { useMenuDatasets } from './hooks/useMenuDatasets';
import { useRoute, VIEWS, type ViewId } from './router';
import { CollectionsView } from './views/collections/CollectionsView';
import { CompareView } from './views/compare/CompareView';
import { DatasetsView } from './views/datasets/DatasetsView';
import { ExperimentsView } from './views/experiments/ExperimentsView';
import { ModelsView } from './views/models/ModelsView';
import { RunsView } from './views/runs/RunsView';
import { SweepsView } from './views/sweeps/SweepsView';
import { PlaceholderView } from './views/PlaceholderView';

const VIEW_HINTS: Record<ViewId, string> = {
  datasets: 'Open a LoCoMo file to browse its samples, sessions, turns and questions.',
  collections: 'Design a memory collection: indexes over one copy of the data.',
  experiments: 'Run question-driven memory experiments on chosen samples.',
  runs: 'Per-category results and accuracy as the conversation grows.',
  compare: 'Compare runs side by side, per category and per question.',
  sweeps: 'Grids of runs from `cli sweep run`: a table and a heatmap per metric.',
  models: 'OpenAI-compatible chat endpoints for answering and judging.',
};

export function App() {
  const [route, navigate] = useRoute();
  const info = useApi('app.info', {});
  const menuOpen = useMenuDatasets();
  const current = VIEWS.find((v) => v.id === route.view) ?? VIEWS[0];

  return (
    <div className="shell">
      <nav className="sidebar" aria-label="Main">
        <div className="brand">Memory Workbench</div>
        <ul>
          {VIEWS.map((view) => (
            <li key={view.id}>
              <a
                href={`#/${view.id}`}
                aria-current={view.id === route.view ? 'page' : undefined}
                onClick={(event) => {
                  event.preventDefault();
                  navigate(view.id);
                }}
              >
                {view.label}
              </a>
            </li>
          ))}
        </ul>
        <footer className="sidebar-footer">
          {info.data
            ? `v${info.data.version} · ${info.data.transport}${info.data.gitCommit ? ` · ${info.data.gitCommit.slice(0, 7)}` : ''}`
            : info.error
              ? 'engine unreachable'
              : 'connecting…'}
        </footer>
      </nav>
      <main className="content">
        {route.view === 'datasets' ? (
          <DatasetsView menuError={menuOpen.error} onDismissMenuError={menuOpen.dismiss} />
        ) : route.view === 'collections' ? (
          <CollectionsView />
        ) : route.view === 'compare' ? (
          <CompareView />
        ) : route.view === 'experiments' ? (
          <ExperimentsView />
        ) : route.view === 'runs' ? (
          <RunsView />
        ) : route.view === 'sweeps' ? (
          <SweepsView />
        ) : route.view === 'models' ? (
          <ModelsView />
        ) : (
          <PlaceholderView title={current.label} hint={VIEW_HINTS[current.id]} />
        )}
      </main>
    </div>
  );
}
