import { useId, useState, type FormEvent } from 'react';
import {
  keylessRemoteWarning,
  type KeyStatus,
  type ModelEndpoint,
  type ModelTestResult,
} from '@shared/models';
import { toErrorPayload, type ErrorPayload } from '@shared/errors';
import { useClient } from '../../api/context';
import { ErrorView } from '../../components/ErrorView';
import { useApi } from '../../hooks/useApi';
import { EMPTY_FORM, endpointInput, formOf, type EndpointForm } from './shape';

type TestState = { pending: true } | ({ pending: false } & ModelTestResult);

/** Which endpoint the form edits: a new one, a saved one (by id), or none (form closed). */
type Editing = { kind: 'new' } | { kind: 'edit'; endpoint: ModelEndpoint } | null;

export function ModelsView() {
  const client = useClient();
  const info = useApi('app.info', {});
  const endpoints = useApi('models.list', {});
  const keys = useApi('models.keyStatus', {});
  const [editing, setEditing] = useState<Editing>(null);
  const [tests, setTests] = useState<Record<string, TestState>>({});
  const [actionError, setActionError] = useState<ErrorPayload | null>(null);
  const electron = info.data?.transport === 'electron';
  const list = endpoints.data ?? [];
  const keyOf = (id: string): KeyStatus | undefined => keys.data?.find((k) => k.endpointId === id);

  const reload = () => {
    endpoints.reload();
    keys.reload();
  };
  const runTest = (id: string) => {
    setTests((t) => ({ ...t, [id]: { pending: true } }));
    client
      .call('models.test', { endpointId: id })
      .then((result) => setTests((t) => ({ ...t, [id]: { pending: false, ...result } })))
      .catch((error: unknown) =>
        setTests((t) => ({
          ...t,
          [id]: { pending: false, ok: false, latencyMs: 0, error: toErrorPayload(error).message },
        })),
      );
  };
  const remove = (endpoint: ModelEndpoint) => {
    if (
      !window.confirm(
        `Delete the endpoint "${endpoint.name}"? Runs that used it keep their record.`,
      )
    )
      return;
    setActionError(null);
    client
      .call('models.delete', { endpointId: endpoint.id })
      .then(reload)
      .catch((error: unknown) => setActionError(toErrorPayload(error)));
  };

  return (
    <section className="models-view" aria-labelledby="view-title">
      <header className="view-header">
        <h1 id="view-title">Models</h1>
        <p className="muted">
          OpenAI-compatible chat endpoints for answering and judging. Keys are never stored with an
          endpoint: each names the environment variable its key is read from.
        </p>
      </header>

      {endpoints.error ? (
        <ErrorView error={endpoints.error} title="Could not list model endpoints" />
      ) : null}
      {actionError ? <ErrorView error={actionError} title="Could not delete the endpoint" /> : null}

      <section className="panel" aria-labelledby="endpoints-title">
        <div className="panel-head">
          <h2 id="endpoints-title">Endpoints</h2>
          <button type="button" className="primary" onClick={() => setEditing({ kind: 'new' })}>
            Add endpoint
          </button>
        </div>
        {endpoints.data !== undefined && list.length === 0 ? (
          <p className="muted">
            No endpoint yet. Add one to offer an LLM answerer and judge in Experiments.
          </p>
        ) : null}
        <ul className="endpoint-list">
          {list.map((e) => (
            <EndpointCard
              key={e.id}
              endpoint={e}
              keyStatus={keyOf(e.id)}
              electron={electron}
              test={tests[e.id]}
              onTest={() => runTest(e.id)}
              onEdit={() => setEditing({ kind: 'edit', endpoint: e })}
              onDelete={() => remove(e)}
              onKeyChanged={keys.reload}
            />
          ))}
        </ul>
      </section>

      {editing ? (
        <EndpointEditor
          key={editing.kind === 'edit' ? editing.endpoint.id : 'new'}
          endpoint={editing.kind === 'edit' ? editing.endpoint : null}
          onDone={(saved) => {
            setEditing(null);
            if (saved) reload();
          }}
        />
      ) : null}
    </section>
  );
}

function KeyBadge({ status }: { status: KeyStatus | undefined }) {
  if (!status) return <span className="status-badge">key …</span>;
  return status.set ? (
    <span className="status-badge status-completed">
      key set · {status.source === 'keychain' ? 'keychain' : 'environment'}
    </span>
  ) : (
    <span className="status-badge status-failed">key not set</span>
  );
}

function EndpointCard({
  endpoint,
  keyStatus,
  electron,
  test,
  onTest,
  onEdit,
  onDelete,
  onKeyChanged,
}: {
  endpoint: ModelEndpoint;
  keyStatus: KeyStatus | undefined;
  electron: boolean;
  test: TestState | undefined;
  onTest: () => void;
  onEdit: () => void;
  onDelete: () => void;
  onKeyChanged: () => void;
}) {
  const titleId = useId();
  const keylessWarning = keylessRemoteWarning(endpoint);
  return (
    <li className="endpoint-card" aria-labelledby={titleId}>
      <div className="endpoint-head">
        <strong id={titleId}>{endpoint.name}</strong>
        <code>{endpoint.model}</code>
        {endpoint.apiKeyEnv !== undefined ? (
          <KeyBadge status={keyStatus} />
        ) : (
          <span className="status-badge">
            {keylessWarning ? 'no key · remote' : 'no key · local'}
          </span>
        )}
        <span className="push-right endpoint-actions">
          <button type="button" onClick={onTest} disabled={test?.pending === true}>
            {test?.pending ? 'Testing…' : 'Test connection'}
          </button>
          <button type="button" onClick={onEdit}>
            Edit
          </button>
          <button type="button" className="danger-outline" onClick={onDelete}>
            Delete
          </button>
        </span>
      </div>
      <dl className="endpoint-facts">
        <dt>Base URL</dt>
        <dd>
          <code>{endpoint.baseUrl}</code>
        </dd>
        <dt>Key variable</dt>
        <dd>
          {endpoint.apiKeyEnv !== undefined ? (
            <code>{endpoint.apiKeyEnv}</code>
          ) : keylessWarning ? (
            'none: no key is sent'
          ) : (
            'none: no key is sent (local server)'
          )}
        </dd>
        <dt>Prices</dt>
        <dd>
          {endpoint.prices
            ? `$${endpoint.prices.inputPerMillion} in · $${endpoint.prices.outputPerMillion} out per 1M tokens`
            : 'not set (no cost shown)'}
        </dd>
      </dl>
      {keylessWarning ? <p className="notice">{keylessWarning}</p> : null}
      {endpoint.apiKeyEnv !== undefined ? (
        <KeyControl
          apiKeyEnv={endpoint.apiKeyEnv}
          status={keyStatus}
          electron={electron}
          onChanged={onKeyChanged}
        />
      ) : null}
      {test && !test.pending ? (
        <p
          role="status"
          aria-label={`Test of ${endpoint.name}`}
          className={test.ok ? 'test-result test-ok' : 'test-result test-bad'}
        >
          {test.ok ? (
            <>
              Connected in <strong>{test.latencyMs} ms</strong>
              {test.model ? ` · ${test.model}` : ''} · reply: “{test.reply}”
            </>
          ) : (
            <>
              Failed after {test.latencyMs} ms: {test.error}
              {test.hint ? (
                <span className="test-hint">
                  <strong>Check:</strong> {test.hint}
                </span>
              ) : null}
            </>
          )}
        </p>
      ) : null}
    </li>
  );
}

/** Desktop app: store the key in the OS keychain. Browser mode: say where the key must come from. */
function KeyControl({
  apiKeyEnv,
  status,
  electron,
  onChanged,
}: {
  apiKeyEnv: string;
  status: KeyStatus | undefined;
  electron: boolean;
  onChanged: () => void;
}) {
  const client = useClient();
  const [open, setOpen] = useState(false);
  const [key, setKey] = useState('');
  const [error, setError] = useState<ErrorPayload | null>(null);
  if (!electron) {
    return status?.set ? null : (
      <p className="muted key-hint">
        In browser mode keys come from the server’s environment: set <code>{apiKeyEnv}</code> before{' '}
        <code>cli serve</code>.
      </p>
    );
  }
  const save = (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    client
      .call('models.setKey', { apiKeyEnv, key })
      .then(() => {
        setKey('');
        setOpen(false);
        onChanged();
      })
      .catch((e: unknown) => setError(toErrorPayload(e)));
  };
  const clear = () => {
    setError(null);
    client
      .call('models.clearKey', { apiKeyEnv })
      .then(onChanged)
      .catch((e: unknown) => setError(toErrorPayload(e)));
  };
  return (
    <div className="key-control">
      {open ? (
        <form className="inline-form" onSubmit={save} aria-label={`Set ${apiKeyEnv}`}>
          <input
            type="password"
            autoComplete="off"
            aria-label={`API key for ${apiKeyEnv}`}
            value={key}
            onChange={(event) => setKey(event.currentTarget.value)}
          />
          <button type="submit" className="primary" disabled={key.trim() === ''}>
            Save to keychain
          </button>
          <button type="button" onClick={() => setOpen(false)}>
            Cancel
          </button>
        </form>
      ) : (
        <>
          <button type="button" className="small" onClick={() => setOpen(true)}>
            Set key…
          </button>
          {status?.source === 'keychain' ? (
            <button type="button" className="small" onClick={clear}>
              Remove from keychain
            </button>
          ) : null}
        </>
      )}
      {error ? <ErrorView error={error} title="Could not store the key" /> : null}
    </div>
  );
}

function EndpointEditor({
  endpoint,
  onDone,
}: {
  endpoint: ModelEndpoint | null;
  onDone: (saved: boolean) => void;
}) {
  const client = useClient();
  const ids = useId();
  const [form, setForm] = useState<EndpointForm>(endpoint ? formOf(endpoint) : EMPTY_FORM);
  const [touched, setTouched] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ErrorPayload | null>(null);
  const result = endpointInput(form, endpoint?.id);
  const keylessWarning = result.ok ? keylessRemoteWarning(result.input) : null;
  const field = (name: keyof EndpointForm) => ({
    value: form[name],
    onChange: (event: React.ChangeEvent<HTMLInputElement>) => {
      const value = event.currentTarget.value;
      setForm((f) => ({ ...f, [name]: value }));
    },
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setTouched(true);
    if (!result.ok) return;
    setBusy(true);
    setError(null);
    client
      .call('models.save', { endpoint: result.input })
      .then(() => onDone(true))
      .catch((e: unknown) => setError(toErrorPayload(e)))
      .finally(() => setBusy(false));
  };

  return (
    <form className="panel endpoint-form" aria-labelledby={`${ids}-title`} onSubmit={submit}>
      <h2 id={`${ids}-title`}>{endpoint ? `Edit ${endpoint.name}` : 'New endpoint'}</h2>
      <div className="field-grid">
        <label className="field">
          <span className="field-label">Name</span>
          <input {...field('name')} placeholder="e.g. GPT-4o mini" />
        </label>
        <label className="field">
          <span className="field-label">Model</span>
          <input {...field('model')} placeholder="e.g. gpt-4o-mini" />
        </label>
        <label className="field">
          <span className="field-label">Base URL</span>
          <input {...field('baseUrl')} placeholder="https://api.openai.com/v1" />
        </label>
        <label className="field">
          <span className="field-label">Key environment variable</span>
          <input {...field('apiKeyEnv')} placeholder="OPENAI_API_KEY" />
          <span className="field-hint">Leave empty for a server that needs no key.</span>
        </label>
        <label className="field">
          <span className="field-label">Input price (USD / 1M tokens)</span>
          <input {...field('inputPrice')} inputMode="decimal" placeholder="optional" />
        </label>
        <label className="field">
          <span className="field-label">Output price (USD / 1M tokens)</span>
          <input {...field('outputPrice')} inputMode="decimal" placeholder="optional" />
        </label>
      </div>
      {keylessWarning ? (
        <p className="notice" role="note" aria-label="Key warning">
          {keylessWarning}
        </p>
      ) : null}
      {touched && !result.ok ? (
        <ul className="form-problems" aria-live="polite">
          {result.problems.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      ) : null}
      {error ? <ErrorView error={error} title="Could not save the endpoint" /> : null}
      <div className="form-actions">
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Saving…' : 'Save endpoint'}
        </button>
        <button type="button" onClick={() => onDone(false)}>
          Cancel
        </button>
        <span className="muted">The key itself is never saved here.</span>
      </div>
    </form>
  );
}
