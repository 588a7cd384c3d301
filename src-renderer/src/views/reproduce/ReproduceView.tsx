import { useCallback, useState } from 'react';
import type { ApiInput } from '@shared/api';
import { toErrorPayload, type ErrorPayload } from '@shared/errors';
import { metricOf } from '@shared/metrics';
import { formatMeanStd } from '@shared/repeats';
import {
  comparePack,
  comparePackTable2,
  defaultPack,
  packCellLabel,
  packCommand,
  packRowStatus,
  packSourceLine,
  signedDiff,
  storedRowsText,
  table2Figure,
  type PackCell,
  type PackResults,
  type PackRowResult,
  type PackRun,
  type PackTable2Cell,
  type ReproducePack,
} from '@shared/reproduce';
import { useClient } from '../../api/context';
import { formatCount as fmtInt } from '../../lib/format';
import { ErrorView } from '../../components/ErrorView';
import { useApi } from '../../hooks/useApi';
import { useRoute } from '../../router';

function PlanPanel({ run }: { run: PackRun }) {
  const p = run.plan;
  return (
    <div className="panel" aria-label="Plan">
      <p>{run.setting}</p>
      <p>
        {run.repeats} complete run(s) per row · {fmtInt(p.questions)} answers ·{' '}
        <strong>
          {fmtInt(p.answerCalls)} answer + {fmtInt(p.judgeCalls)} judge LLM calls
        </strong>{' '}
        · about {fmtInt(p.promptTokens)} prompt and at most {fmtInt(p.completionTokens)} completion
        tokens · cost {p.cost === null ? 'n/a (no prices)' : `$${p.cost.toFixed(2)}`}
      </p>
    </div>
  );
}

function ComparisonTable({
  pack,
  cells,
  label,
  partial,
}: {
  pack: ReproducePack;
  cells: readonly PackCell[];
  label: string;
  /** Rows whose stored group has fewer complete runs than it asked: marked beside their id. */
  partial?: ReadonlySet<string>;
}) {
  return (
    <table aria-label={label}>
      <thead>
        <tr>
          <th scope="col">Row</th>
          <th scope="col">Metric</th>
          <th scope="col">Cell</th>
          <th scope="col">Paper</th>
          <th scope="col">Ours</th>
          <th scope="col">Ours − paper</th>
        </tr>
      </thead>
      <tbody>
        {cells.map((c) => (
          <tr key={`${c.row}|${c.metric}|${c.cell}`}>
            <th scope="row">
              {c.row}
              {partial?.has(c.row) ? <span className="muted"> (partial)</span> : null}
            </th>
            <td>{metricOf(c.metric).label}</td>
            <td>{packCellLabel(pack, c.cell)}</td>
            <td>{formatMeanStd({ mean: c.paper, std: c.paperStd }, pack.decimals, '–')}</td>
            <td>{formatMeanStd({ mean: c.ours, std: c.oursStd }, pack.decimals, '–')}</td>
            <td>{signedDiff(c.diff, pack.decimals)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Mem0 Table 2's latency and memory-token figures, paper vs ours, in the paper's units. */
function Table2Figures({ cells, label }: { cells: readonly PackTable2Cell[]; label: string }) {
  if (cells.length === 0) return null;
  return (
    <table aria-label={label}>
      <thead>
        <tr>
          <th scope="col">Row</th>
          <th scope="col">Figure</th>
          <th scope="col">Paper</th>
          <th scope="col">Ours</th>
          <th scope="col">Ours − paper</th>
        </tr>
      </thead>
      <tbody>
        {cells.map((c) => {
          const paper = table2Figure(c.column, c.paper);
          return (
            <tr key={`${c.row}|${c.column}`}>
              <th scope="row">{c.row}</th>
              <td>{paper.label}</td>
              <td>{paper.text}</td>
              <td>{table2Figure(c.column, c.ours).text}</td>
              <td>{paper.diff(c.diff)}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

/** The rows with stored runs first (in the pack's order), then the paper's other rows. */
function ranFirst(results: PackResults): PackCell[] {
  const ran = new Set(results.rows.map((r) => r.row));
  return [
    ...results.cells.filter((c) => ran.has(c.row)),
    ...results.cells.filter((c) => !ran.has(c.row)),
  ];
}

/** Each row's stored runs: status, question set, the user's dataset and the command that remakes them. */
function StoredRuns({ rows }: { rows: readonly PackRowResult[] }) {
  return (
    <table aria-label="Stored runs">
      <thead>
        <tr>
          <th scope="col">Row</th>
          <th scope="col">Runs</th>
          <th scope="col">Dataset</th>
          <th scope="col">Command</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={r.row} className={r.status === 'partial' ? 'partial' : undefined}>
            <th scope="row">{r.row}</th>
            <td>{packRowStatus(r)}</td>
            <td>
              <code>{r.dataset.file}</code>
            </td>
            <td>
              <pre className="cli-command">
                <code>{r.command}</code>
              </pre>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function ReproduceView() {
  const [route, navigate] = useRoute();
  const client = useClient();
  const packs = useApi('reproduce.packs', {});
  const datasets = useApi('datasets.list', {});
  const endpoints = useApi('models.list', {});
  const list = packs.data ?? [];
  const wanted = route.params.get('pack');
  const item = list.find((p) => p.pack.id === wanted) ?? defaultPack(list);
  const datasetList = datasets.data ?? [];
  const dataset =
    datasetList.find((d) => d.datasetId === route.params.get('dataset')) ?? datasetList[0] ?? null;
  const [repeats, setRepeats] = useState(1);
  const [endpointId, setEndpointId] = useState('');
  const [useEndpointModel, setUseEndpointModel] = useState(false);
  const endpoint = (endpoints.data ?? []).find((e) => e.id === endpointId) ?? null;
  const runInput =
    item?.runnable && dataset ? { packId: item.pack.id, datasetId: dataset.datasetId } : null;
  // The plan prices the calls at the chosen endpoint's prices, as its CLI command would.
  const plan = useApi(
    'reproduce.plan',
    runInput && endpoint?.prices ? { ...runInput, prices: endpoint.prices } : runInput,
  );
  // What is stored for the pack, whichever surface ran it (`cli reproduce`, this view, a sweep).
  const stored = useApi('reproduce.results', item?.runnable ? { packId: item.pack.id } : null);
  const reloadStored = stored.reload;
  const [running, setRunning] = useState(false);
  const [result, setResult] = useState<PackRun | null>(null);
  const [runError, setRunError] = useState<ErrorPayload | null>(null);

  const choose = (patch: Record<string, string>): void => {
    setResult(null);
    navigate('reproduce', {
      ...(item ? { pack: item.pack.id } : {}),
      ...(dataset ? { dataset: dataset.datasetId } : {}),
      ...patch,
    });
  };
  // A string key, so the callback changes only when the pack or the dataset does.
  const runKey = runInput === null ? null : JSON.stringify(runInput);
  const run = useCallback(() => {
    if (runKey === null) return;
    setRunning(true);
    setRunError(null);
    client
      .call('reproduce.run', { ...(JSON.parse(runKey) as ApiInput<'reproduce.run'>), repeats })
      .then(setResult)
      .catch((error: unknown) => setRunError(toErrorPayload(error)))
      .finally(() => {
        setRunning(false);
        reloadStored();
      });
  }, [client, runKey, repeats, reloadStored]);

  const shown = result && item && result.packId === item.pack.id ? result : null;
  const results = stored.data && item && stored.data.packId === item.pack.id ? stored.data : null;
  return (
    <section className="reproduce-view" aria-labelledby="view-title">
      <header className="view-header">
        <h1 id="view-title">Reproduce</h1>
      </header>
      {packs.error ? <ErrorView error={packs.error} title="Could not list the packs" /> : null}
      <div className="panel">
        <label>
          Pack{' '}
          <select value={item?.pack.id ?? ''} onChange={(e) => choose({ pack: e.target.value })}>
            {list.map((p) => (
              <option key={p.pack.id} value={p.pack.id}>
                {p.pack.id}
                {p.runnable ? '' : ' (not runnable yet)'}
                {p.stored && p.stored.rows > 0 ? ` · stored runs: ${storedRowsText(p.stored)}` : ''}
              </option>
            ))}
          </select>
        </label>{' '}
        <label>
          Dataset{' '}
          <select
            value={dataset?.datasetId ?? ''}
            onChange={(e) => choose({ dataset: e.target.value })}
          >
            {datasetList.map((d) => (
              <option key={d.datasetId} value={d.datasetId}>
                {d.name}
              </option>
            ))}
          </select>
        </label>
        {item ? (
          <>
            <h2>{item.pack.title}</h2>
            <p className="muted" aria-label="Source">
              {packSourceLine(item.pack)}. {item.pack.source.note}
            </p>
            <p className="muted">The paper&apos;s questions: {item.pack.source.questionSet}.</p>
            {/* The tables name rows by id; what each row is (the library, a stand-in) is here. */}
            <p className="muted" aria-label="Rows">
              Rows: {item.pack.rows.map((r) => `${r.id}: ${r.label}`).join('; ')}.
            </p>
            {item.reason ? <p role="alert">{item.reason}</p> : null}
          </>
        ) : null}
        {datasets.data !== undefined && datasetList.length === 0 ? (
          <p className="muted">To run a pack here, open its dataset in the Datasets view first.</p>
        ) : null}
      </div>
      {plan.error ? <ErrorView error={plan.error} title="Could not plan the pack" /> : null}
      {plan.data && item?.runnable ? <PlanPanel run={plan.data} /> : null}
      {item?.runnable && dataset ? (
        <div className="panel">
          <p className="muted">
            Runs here are offline (extractive answerer, no judge): not the paper&apos;s setting. The
            paper&apos;s models run from the CLI, through a saved endpoint (Models view):
          </p>
          <label>
            Endpoint{' '}
            <select value={endpointId} onChange={(e) => setEndpointId(e.target.value)}>
              <option value="">none chosen</option>
              {(endpoints.data ?? []).map((e) => (
                <option key={e.id} value={e.id}>
                  {e.name}
                </option>
              ))}
            </select>
          </label>{' '}
          {endpoint ? (
            <label>
              <input
                type="checkbox"
                checked={useEndpointModel}
                onChange={(e) => setUseEndpointModel(e.target.checked)}
              />{' '}
              its model ({endpoint.model}) instead of the paper&apos;s
            </label>
          ) : null}
          <pre className="cli-command" aria-label="CLI command">
            <code>
              {packCommand(
                item.pack.id,
                dataset.userFile,
                endpoint
                  ? {
                      baseUrl: endpoint.baseUrl,
                      model: endpoint.model,
                      ...(endpoint.apiKeyEnv ? { apiKeyEnv: endpoint.apiKeyEnv } : {}),
                      ...(endpoint.prices ? { prices: endpoint.prices } : {}),
                    }
                  : null,
                useEndpointModel,
              )}
            </code>
          </pre>
          <label>
            Complete runs per row{' '}
            <input
              type="number"
              min={1}
              max={100}
              value={repeats}
              onChange={(e) => setRepeats(Math.max(1, Math.min(100, Number(e.target.value) || 1)))}
            />
          </label>{' '}
          <button type="button" onClick={run} disabled={running}>
            {running ? 'Running…' : 'Run offline'}
          </button>
        </div>
      ) : null}
      {runError ? <ErrorView error={runError} title="The pack did not run" /> : null}
      {shown && item ? (
        <div className="panel">
          <p role="status">{shown.setting}</p>
          {shown.failures && shown.failures.length > 0 ? (
            <div role="alert" aria-label="Rows that did not complete">
              <p>
                {shown.failures.length} run(s) did not complete; their rows show fewer runs than
                asked:
              </p>
              <ul>
                {shown.failures.map((f) => (
                  <li key={`${f.row}-${f.repeat}`}>
                    <code>{f.row}</code> run {f.repeat + 1}
                    {f.runId ? (
                      <>
                        {' '}
                        (<code>{f.runId}</code>)
                      </>
                    ) : null}
                    : {f.error}
                  </li>
                ))}
              </ul>
            </div>
          ) : null}
        </div>
      ) : null}
      {stored.error ? (
        <ErrorView error={stored.error} title="Could not read the stored runs" />
      ) : null}
      {item && results && results.rows.length > 0 ? (
        <div className="panel" aria-label="Stored results">
          <h2>Paper vs ours, from the stored runs</h2>
          <StoredRuns rows={results.rows} />
          <ComparisonTable
            pack={item.pack}
            cells={ranFirst(results)}
            label="Paper vs ours"
            partial={new Set(results.rows.filter((r) => r.status === 'partial').map((r) => r.row))}
          />
          <Table2Figures
            cells={results.table2}
            label="Table 2 latency and memory tokens: paper, ours"
          />
        </div>
      ) : null}
      {item && !(results && results.rows.length > 0) ? (
        <details className="panel">
          <summary>The paper&apos;s figures (ours appear beside them after a run)</summary>
          <ComparisonTable
            pack={item.pack}
            cells={comparePack(item.pack, new Map())}
            label="Published figures"
          />
          <Table2Figures
            cells={comparePackTable2(item.pack, new Map())}
            label="Published latency and memory tokens"
          />
        </details>
      ) : null}
    </section>
  );
}
