import type { ErrorPayload } from '@shared/errors';

/** A bad file or a failed call: say what and where, and leave the rest of the app usable. */
export function ErrorView({
  error,
  title = 'Something went wrong',
}: {
  error: ErrorPayload;
  title?: string;
}) {
  return (
    <div role="alert" className="error-view">
      <strong>{title}</strong>
      <p>{error.message}</p>
      <small>
        code {error.code}
        {error.where ? ` · ${error.where}` : ''}
      </small>
    </div>
  );
}
