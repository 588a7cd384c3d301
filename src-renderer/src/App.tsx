import styles from './App.module.css';
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
import { ReproduceView } from './views/reproduce/ReproduceView';

export function App() {
  const [route, navigate] = useRoute();
  const info = useApi('app.info', {});
  const menuOpen = useMenuDatasets();

  return (
    <div className={styles.shell}>
      {/* The hash is the router's: the link moves focus itself instead of navigating. */}
      <a
        className={styles.skipLink}
        href="#main-content"
        onClick={(event) => {
          event.preventDefault();
          document.getElementById('main-content')?.focus();
        }}
      >
        Skip to content
      </a>
      <nav className={styles.sidebar} aria-label="Main">
        <div className={styles.brand}>Memory Workbench</div>
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
        <footer className={styles.footer}>
          {info.data
            ? `v${info.data.version} · ${info.data.transport}${info.data.gitCommit ? ` · ${info.data.gitCommit.slice(0, 7)}` : ''}`
            : info.error
              ? 'engine unreachable'
              : 'connecting…'}
        </footer>
      </nav>
      <main id="main-content" className={styles.content} tabIndex={-1}>
        {route.view === 'datasets' ? (
          <DatasetsView menuError={menuOpen.error} onDismissMenuError={menuOpen.dismiss} />
        ) : (
          <OtherView view={route.view} />
        )}
      </main>
    </div>
  );
}

/** Every view but Datasets; exhaustive, so a new view id fails the type check until it has a view. */
function OtherView({ view }: { view: Exclude<ViewId, 'datasets'> }) {
  switch (view) {
    case 'collections':
      return <CollectionsView />;
    case 'experiments':
      return <ExperimentsView />;
    case 'runs':
      return <RunsView />;
    case 'compare':
      return <CompareView />;
    case 'sweeps':
      return <SweepsView />;
    case 'reproduce':
      return <ReproduceView />;
    case 'models':
      return <ModelsView />;
  }
}
