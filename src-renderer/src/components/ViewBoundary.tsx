import { Component, Suspense, type ReactNode } from 'react';
import { toErrorPayload, type ErrorPayload } from '@shared/errors';
import { ErrorView } from './ErrorView';

interface Props {
  /** The view's name, for the loading line and the error's title. */
  label: string;
  children: ReactNode;
}

/**
 * Where a view's chunk loads: a status line while it is on its way, and an alert instead of a
 * blank app when it cannot load (the server stopped, a build replaced the files) or throws.
 * Keyed by the view by its parent, so leaving a failed view clears the error.
 */
export class ViewBoundary extends Component<Props, { error: ErrorPayload | null }> {
  override state = { error: null };

  static getDerivedStateFromError(error: unknown): { error: ErrorPayload } {
    return { error: toErrorPayload(error) };
  }

  override render() {
    const { label, children } = this.props;
    if (this.state.error !== null) {
      return (
        <>
          <ErrorView error={this.state.error} title={`Could not show the ${label} view`} />
          {/* React keeps a failed chunk's error: only a fresh page fetches it again. */}
          <button type="button" onClick={() => window.location.reload()}>
            Reload
          </button>
        </>
      );
    }
    return (
      <Suspense
        fallback={
          <p className="muted" role="status">
            Loading {label}…
          </p>
        }
      >
        {children}
      </Suspense>
    );
  }
}
