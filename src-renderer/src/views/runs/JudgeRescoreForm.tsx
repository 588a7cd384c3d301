import { useState, type FormEvent } from 'react';
import type { BenchmarkProfile } from '@shared/benchmarks';
import { ownJudgeProtocol, type JudgeProtocolName } from '@shared/experiment';
import { toErrorPayload, type ErrorPayload } from '@shared/errors';
import { endpointLlmFields } from '@shared/models';
import { useClient } from '../../api/context';
import { ErrorView } from '../../components/ErrorView';
import { useApi } from '../../hooks/useApi';
import { EndpointSelect, JudgeProtocolSelect } from '../models/EndpointSelect';
import styles from './ScoreTables.module.css';

const NO_ENDPOINT = '';

/**
 * Runs one judge protocol over a stored run's final answers (API `runs.rescore` with `judge`,
 * what `cli rescore --judge` does) with a saved endpoint of the Models view as the judge model;
 * `onRescored` reloads the run so the protocol's row appears.
 */
export function JudgeRescoreForm({
  runId,
  running,
  profile,
  onRescored,
}: {
  runId: string;
  /** The run's benchmark: its own judge is preselected. */
  profile: BenchmarkProfile;
  /** A run still answering has no final answers to judge yet. */
  running: boolean;
  onRescored: () => void;
}) {
  const client = useClient();
  const models = useApi('models.list', {});
  const endpoints = models.data ?? [];
  const [protocol, setProtocol] = useState<JudgeProtocolName>(() => ownJudgeProtocol(profile));
  const [endpointId, setEndpointId] = useState(NO_ENDPOINT);
  // A choice whose endpoint was deleted meanwhile falls back to none rather than a stale config.
  const endpoint = endpoints.find((e) => e.id === endpointId) ?? null;
  const [busy, setBusy] = useState(false);
  const [status, setStatus] = useState<string | null>(null);
  const [error, setError] = useState<ErrorPayload | null>(null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (endpoint === null) return;
    setBusy(true);
    setError(null);
    setStatus(`Judging the final answers under ${protocol} with ${endpoint.model}…`);
    try {
      const result = await client.call('runs.rescore', {
        runId,
        judge: { ...endpointLlmFields(endpoint), protocol },
      });
      const judged = result.judge;
      setStatus(
        judged
          ? `Judged ${judged.judged} answers under ${judged.protocol} (${judged.unparseable} unparseable, ${judged.errors} errors, ${judged.calls} calls).`
          : `Rescored ${result.answers} answers.`,
      );
      onRescored();
    } catch (e) {
      setStatus(null);
      setError(toErrorPayload(e));
    } finally {
      setBusy(false);
    }
  };

  if (models.error) return <ErrorView error={models.error} title="Could not list the models" />;
  if (models.data !== undefined && endpoints.length === 0)
    return (
      <p className="muted">
        Save a model endpoint in the Models view to rescore with a judge protocol here.
      </p>
    );
  return (
    <form
      className={styles.rescoreForm}
      aria-label="Rescore with a judge protocol"
      onSubmit={(event) => void submit(event)}
    >
      <JudgeProtocolSelect value={protocol} onChange={setProtocol} />
      <EndpointSelect
        label="Judge model"
        wide={false}
        endpoints={endpoints}
        chosen={endpoint}
        none={{ value: NO_ENDPOINT, label: 'Choose a saved endpoint…' }}
        onChange={setEndpointId}
      />
      <button type="submit" disabled={busy || running || endpoint === null}>
        {busy ? 'Rescoring…' : 'Rescore with judge'}
      </button>
      {status ? (
        <p role="status" className={`muted ${styles.rescoreStatus}`}>
          {status}
        </p>
      ) : null}
      {error ? (
        <div className={styles.rescoreStatus}>
          <ErrorView error={error} title="Could not rescore with the judge" />
        </div>
      ) : null}
    </form>
  );
}
