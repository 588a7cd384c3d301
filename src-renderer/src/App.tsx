import styles from './App.module.css';
import { ViewBoundary } from './components/ViewBoundary';
import { useApi } from './hooks/useApi';
import { MenuDatasetsContext, useMenuDatasets } from './hooks/useMenuDatasets';
import { useRoute } from './router';
import { VIEWS } from './views';

export function App() {
  const [route, navigate] = useRoute();
  const info = useApi('app.info', {});
  const menuOpen = useMenuDatasets();
  const shown = VIEWS.find((view) => view.id === route.view) ?? VIEWS[0];
  const View = shown.component;

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
                aria-current={view.id === shown.id ? 'page' : undefined}
                // Fetch the view's chunk as the pointer or focus nears it, before the click.
                onPointerEnter={() => void view.component.load().catch(() => undefined)}
                onFocus={() => void view.component.load().catch(() => undefined)}
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
        <MenuDatasetsContext.Provider value={menuOpen}>
          <ViewBoundary key={shown.id} label={shown.label}>
            <View />
          </ViewBoundary>
        </MenuDatasetsContext.Provider>
      </main>
    </div>
  );
}
