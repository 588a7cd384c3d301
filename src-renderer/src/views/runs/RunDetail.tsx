import { useMemo } from 'react';
import type { RunDetail as RunDetailData } from '@shared/api';
import type { ScoreIntervals } from '@shared/compare';
import { schemeLabelOf, type OverallName } from '@shared/benchmarks';
import { coverageNote } from '@shared/coverage';
import { describeWireShape } from '@shared/requestParams';
import { rankingDepthLabel, rankingDepthMark, type ScorePair } from '@shared/experiment';
import type { TokenTotals } from '@shared/runs';
import { metricList, metricOf } from '@shared/metrics';
import { CategoryChart } from '../../components/charts/CategoryChart';
import {
  categoryChartRows,
  formatScore,
  METRIC_LABELS,
} from '../../components/charts/categoryRows';
import { SchemeToggle } from '../../components/SchemeToggle/SchemeToggle';
import { Segmented } from '../../components/Segmented/Segmented';
import { useApi } from '../../hooks/useApi';
import { CurveChart } from './CurveChart';
import { ErrataPanel, JudgeProtocolsPanel } from './ScoreTables';
import { JudgePanelSection } from './JudgePanelSection';
import {
  curveSampleIds,
  curveView,
  formatDateTime,
  formatCost,
  formatDuration,
  formatJudge,
  formatTokens,
  runMetrics,
  shortHash,
  type CurveMode,
  type RunsParams,
  type RunsParamsPatch,
} from './shape';
import { AnswersSection } from './AnswersSection';
import { LabellingPanel } from './LabellingPanel';

const METRIC_SHORT: Readonly<Record<string, string>> = Object.fromEntries(
  metricList().map((m) => [m.id, m.short]),
);

export function RunDetail({
  detail,
  params,
  update,
  onRescored,
}: {
  detail: RunDetailData;
  params: RunsParams;
  update: (patch: RunsParamsPatch) => void;
  /** A judge protocol rescored the run: reload it. */
  onRescored: () => void;
}) {
  const { info, benchmark, summary, curve } = detail;
  const m = info.manifest;
  // Uploaded files are stored under their hash; the open dataset with that hash has the real name.
  const datasets = useApi('datasets.list', {});
  const openDataset =
    datasets.data === undefined
      ? undefined
      : (datasets.data.find((d) => d.sha256 === m.dataset.sha256) ?? null);
  const datasetName = openDataset?.name ?? m.dataset.path.split(/[\\/]/).pop() ?? m.dataset.path;
  // A metric this run lacks (a judge-less run opened from a judged run's URL) falls back to F1.
  const metrics = runMetrics(summary, m);
  const metric = metrics.includes(params.metric) ? params.metric : 'officialF1';
  const intervals = detail.intervals;
  const rows = useMemo(() => {
    const plain = categoryChartRows([{ key: 'run', summary }], {
      metric,
      scheme: params.scheme,
      benchmark,
    });
    // Whiskers where the interval is of the metric drawn (official F1).
    if (!intervals || intervals.metric !== metric) return plain;
    return plain.map((row) => {
      const ci = intervals.byCategory[row.category];
      return ci && ci.n > 0 ? { ...row, intervals: { run: [ci.low, ci.high] as const } } : row;
    });
  }, [summary, metric, params.scheme, benchmark, intervals]);
  const curveState = useMemo(
    () => curveView(curve, params.curve, metric),
    [curve, params.curve, metric],
  );
  const curveSamples = useMemo(() => curveSampleIds(curve), [curve]);
  // A headline n below the dataset's question count says why, beside the count.
  const coverage = coverageNote(m, summary);
  // ≥: a lower bound (the memory returned fewer items than the reference's depth); ?: not recorded.
  const depthMark = rankingDepthMark(metricOf(metric), summary);

  const labellingPanel = (
    <LabellingPanel
      runId={info.id}
      running={info.status === 'running'}
      datasetSha256={m.dataset.sha256}
      profile={benchmark}
      scheme={params.scheme}
      labelling={params.labelling}
      setLabelling={(labelling) => update({ labelling })}
    />
  );
  // Scores under other judge protocols are read with the headline; without any, the panel is only
  // the form that adds one, looked up rather than read, so the answers come a panel sooner.
  const judgeScoresFirst = detail.judgeProtocols.length > 0;
  const judgeProtocolsPanel = (
    <JudgeProtocolsPanel
      runId={info.id}
      running={info.status === 'running'}
      protocols={detail.judgeProtocols}
      profile={benchmark}
      scheme={params.scheme}
      onRescored={onRescored}
    />
  );
  return (
    <>
      <section className="overall-cards" aria-label="Overall scores">
        <Overall
          title={`All categories (n=${summary.overall.all.officialF1.n})`}
          note={benchmark.overallNames.all.note}
          pair={summary.overall.all}
          interval={intervals && intervals.all.n > 0 ? intervals : undefined}
        />
        {benchmark.overallNames.answerable && summary.overall.answerable ? (
          <Overall
            title={`${overallTitle(benchmark.overallNames.answerable)} (n=${summary.overall.answerable.officialF1.n})`}
            note={benchmark.overallNames.answerable.note}
            pair={summary.overall.answerable}
          />
        ) : null}
        {summary.overall.taskAveraged ? (
          <Overall
            title={`Task-averaged (n=${summary.overall.all.officialF1.n})`}
            note={`mean over ${benchmark.label} question types`}
            pair={summary.overall.taskAveraged}
          />
        ) : null}
        {summary.overall.abstention ? (
          <Overall
            title={`Abstention (n=${summary.overall.abstention.judge.n})`}
            note="abstention questions only, as the benchmark reports them"
            pair={summary.overall.abstention}
          />
        ) : null}
        <div className="overall-card">
          <div className="overall-title">Questions</div>
          <div className="overall-value">{summary.questions}</div>
          <div className={summary.errors > 0 ? 'has-errors' : 'muted'}>
            {summary.errors} errored answers
          </div>
          {coverage ? (
            // A choice (samples picked) reads as a note; only lost questions are in red.
            <div
              role="note"
              className={`coverage-note ${coverage.deliberate ? 'muted' : 'has-errors'}`}
            >
              {coverage.text}
            </div>
          ) : null}
        </div>
      </section>

      {judgeScoresFirst ? judgeProtocolsPanel : null}
      <JudgePanelSection panel={detail.judgePanel} />
      {params.labelling ? labellingPanel : null}
      {detail.errata ? (
        <ErrataPanel
          errata={detail.errata}
          metric={metric}
          profile={benchmark}
          scheme={params.scheme}
        />
      ) : null}

      <AnswersSection
        runId={info.id}
        params={params}
        update={update}
        datasetSha256={m.dataset.sha256}
        datasetPath={m.dataset.path}
        datasetName={datasetName}
        profile={benchmark}
        memoryUsage={m.usage?.memory ?? null}
        metrics={metrics}
      />
      {/*
        The charts follow the answers, side by side where both fit: opening a run shows its headline
        and its first answers on one screen (1400x900), and the answers' box is bounded, so the
        charts start about a screen below the cards, whole, at their size.
      */}
      <div className="run-charts">
        <section className="panel" aria-labelledby="by-category-title">
          <div className="panel-head">
            <h2 id="by-category-title">Per category</h2>
            <div className="toolbar">
              <Segmented
                label="Metric"
                // Short names keep every metric on one row of the half-width panel.
                options={metrics.map((value) => ({
                  value,
                  label: rankingDepthLabel(METRIC_LABELS[value], metricOf(value), summary),
                  short: rankingDepthLabel(
                    METRIC_SHORT[value] ?? METRIC_LABELS[value],
                    metricOf(value),
                    summary,
                  ),
                }))}
                value={metric}
                onChange={(metric) => update({ metric })}
              />
              <SchemeToggle
                profile={benchmark}
                value={params.scheme}
                onChange={(scheme) => update({ scheme })}
              />
            </div>
          </div>
          <CategoryChart
            rows={rows}
            series={[{ key: 'run', label: info.preset }]}
            metricLabel={rankingDepthLabel(METRIC_LABELS[metric], metricOf(metric), summary)}
            schemeLabel={schemeLabelOf(benchmark, params.scheme)}
            subject="final answers"
            height={300}
            bootstrap={intervals?.metric === metric ? intervals : undefined}
          />
          {depthMark ? (
            <p className="muted" role="note">
              {depthMark.mark} {depthMark.note}
            </p>
          ) : null}
        </section>

        <section className="panel" aria-labelledby="curve-title">
          <div className="panel-head">
            <h2 id="curve-title">Accuracy as the conversation grows</h2>
            {curveSamples.length > 1 ? (
              <label className="inline-field">
                Samples
                <select
                  value={
                    curveState.mode.kind === 'sample'
                      ? `sample:${curveState.mode.sampleId}`
                      : curveState.mode.kind
                  }
                  onChange={(event) =>
                    update({ curve: parseCurveOption(event.currentTarget.value) })
                  }
                >
                  <option value="mean">Mean across samples (by test #)</option>
                  <option value="each">Each sample (F1)</option>
                  {curveSamples.map((id) => (
                    <option key={id} value={`sample:${id}`}>
                      {id}
                    </option>
                  ))}
                </select>
              </label>
            ) : null}
          </div>
          {curve.length === 0 ? (
            <p className="muted">No test was committed.</p>
          ) : (
            <CurveChart view={curveState} />
          )}
        </section>
      </div>

      {/* With no protocol's scores in it, the judge panel is only a form: it follows the answers. */}
      {judgeScoresFirst ? null : judgeProtocolsPanel}
      {/* Outside labelling, the panel is looked up, not read first: it follows the answers. */}
      {params.labelling ? null : labellingPanel}
      {/* Provenance: looked up, not read first, so it follows the answers. */}
      <section className="panel manifest" aria-labelledby="manifest-title">
        <h2 id="manifest-title">Manifest</h2>
        <dl className="manifest-grid">
          <Fact label="Dataset">
            <span title={m.dataset.path}>{datasetName}</span>{' '}
            <span className="muted">
              sha256 <code title={m.dataset.sha256 ?? ''}>{shortHash(m.dataset.sha256)}</code>
              {openDataset === null ? ' · not open' : ''}
            </span>
          </Fact>
          <Fact label="Samples">
            {m.samples.length <= 4 ? m.samples.join(', ') : `${m.samples.length} samples`}
          </Fact>
          <Fact label="Memory preset">
            <strong>{m.memory.preset}</strong>
          </Fact>
          <Fact label="Answerer">
            {m.answerer.name} <span className="muted">({m.answerer.kind})</span>
            {m.answerer.model ? (
              <>
                {' '}
                · model <code>{m.answerer.model}</code>
              </>
            ) : null}
          </Fact>
          <Fact label="Protocol mode">
            {m.config.mode ?? 'stream'}{' '}
            <span className="muted">
              {m.config.mode === 'ingest-all'
                ? '(every packet, then each question once)'
                : '(questions re-asked at every test)'}
            </span>
          </Fact>
          {m.answerCache ? (
            <Fact label="Response cache">
              {m.answerCache.mode === 'only' ? 'replay only' : 'on'} ·{' '}
              {m.answerCache.hits.toLocaleString('en-US')} answered from the cache,{' '}
              {m.answerCache.misses.toLocaleString('en-US')} asked
            </Fact>
          ) : null}
          {m.requestParams && m.requestParams.length > 0 ? (
            <Fact label="Requests sent" wide>
              <ul className="manifest-warnings">
                {m.requestParams.map((shape) => {
                  const line = describeWireShape(shape);
                  return (
                    <li key={line}>
                      <code>{line}</code>
                    </li>
                  );
                })}
              </ul>
            </Fact>
          ) : null}
          {m.memoryCache ? (
            <Fact label="Memory LLM cache">
              {m.memoryCache.hits.toLocaleString('en-US')} answered from the cache,{' '}
              {m.memoryCache.misses.toLocaleString('en-US')} asked
            </Fact>
          ) : null}
          {m.answerer.prompts ? (
            <Fact label="Answer protocol · hash">
              {m.answerer.prompts.style} ·{' '}
              <code title={m.answerer.prompts.sha256}>{shortHash(m.answerer.prompts.sha256)}</code>
            </Fact>
          ) : null}
          {m.judge ? (
            <Fact label="Judge">
              <code>{m.judge.model}</code> · {m.judge.repeats}{' '}
              {m.judge.repeats === 1 ? 'repeat' : 'repeats'}{' '}
              <span className="muted">
                protocol {m.judge.prompt.style} · prompt{' '}
                <code title={m.judge.prompt.sha256}>{shortHash(m.judge.prompt.sha256)}</code>
                {m.judge.unparseable
                  ? ` · ${m.judge.unparseable} unreadable replies counted WRONG`
                  : ''}
                {m.judge.cacheHits ? ` · ${m.judge.cacheHits} verdicts from its cache` : ''}
              </span>
            </Fact>
          ) : null}
          {m.usage ? (
            <Fact label="Tokens · cost" wide>
              <UsageLine label="answer" totals={m.usage.answer} />
              {m.usage.judge ? (
                <>
                  {' · '}
                  <UsageLine label="judge" totals={m.usage.judge} />
                </>
              ) : null}
              {m.usage.memory ? (
                <>
                  {' · '}
                  <UsageLine label="memory" totals={m.usage.memory} />
                </>
              ) : null}
              {m.usage.preflight ? (
                <>
                  {' · '}
                  <UsageLine label="preflight" totals={m.usage.preflight} />
                </>
              ) : null}
            </Fact>
          ) : null}
          <Fact label="Embedder">
            {m.embedder ?? <span className="muted">none</span>}
            {m.embedding && m.embedding.cacheHits + m.embedding.cacheMisses > 0 ? (
              <span className="muted">
                {' '}
                · {m.embedding.requests} requests, cache {m.embedding.cacheHits} hits /{' '}
                {m.embedding.cacheMisses} misses
              </span>
            ) : null}
          </Fact>
          {m.warnings && m.warnings.length > 0 ? (
            <Fact label="Warnings" wide>
              <ul className="manifest-warnings">
                {m.warnings.map((w) => (
                  <li key={w}>{w}</li>
                ))}
              </ul>
            </Fact>
          ) : null}
          <Fact label="Top-k · seed · workers">
            {m.config.retrieval.topK} · {m.seed} · {m.parallel}
          </Fact>
          <Fact label="App">
            v{m.app.version}
            {m.app.gitCommit ? (
              <>
                {' '}
                · <code>{m.app.gitCommit.slice(0, 7)}</code>
              </>
            ) : null}
          </Fact>
          <Fact label="Started → ended">
            {formatDateTime(m.startedAt)} → {formatDateTime(m.endedAt)}{' '}
            <span className="muted">({formatDuration(m.startedAt, m.endedAt)})</span>
          </Fact>
          <Fact label="Config hash">
            <code title={m.configHash}>{shortHash(m.configHash)}</code>
          </Fact>
          <Fact label="Errors">
            <span className={m.errors.insert + m.errors.answer > 0 ? 'has-errors' : undefined}>
              {m.errors.insert} insert · {m.errors.answer} answer
            </span>
          </Fact>
          {m.memory.notes.length > 0 ? (
            <Fact label="Preset notes" wide>
              {m.memory.notes.join('; ')}
            </Fact>
          ) : null}
        </dl>
        {info.error ? (
          <p role="alert" className="run-failed">
            {info.error}
          </p>
        ) : null}
      </section>
    </>
  );
}

function parseCurveOption(value: string): CurveMode {
  if (value === 'mean' || value === 'each') return { kind: value };
  return { kind: 'sample', sampleId: value.replace(/^sample:/, '') };
}

function Fact({
  label,
  wide = false,
  children,
}: {
  label: string;
  wide?: boolean;
  children: React.ReactNode;
}) {
  return (
    <div className={wide ? 'fact fact-wide' : 'fact'}>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}

/**
 * A card's title from the benchmark's name of an overall: "categories 1-4" is "Categories 1–4"
 * (capitalised, a number range set with an en dash as the views print ranges).
 */
function overallTitle(name: OverallName): string {
  const label = name.label.replace(/(\d)-(\d)/g, '$1–$2');
  return label.charAt(0).toUpperCase() + label.slice(1);
}

/** Answer metrics beyond official F1 that skip adversarial questions (Mem0-style), and judges. */
const extra = metricList().filter((m) => m.source === 'answer' && m.categories === 'answerable');
const judges = metricList().filter((m) => m.source === 'judge');

function Overall({
  title,
  note,
  pair,
  interval,
}: {
  title: string;
  note: string;
  pair: ScorePair;
  /** The headline's 95% bootstrap interval, where the engine sent one. */
  interval?: ScoreIntervals | undefined;
}) {
  return (
    <div className="overall-card">
      <div className="overall-title">{title}</div>
      <div className="overall-value">
        {formatScore(pair.officialF1.mean)} <span className="overall-unit">F1</span>
      </div>
      {interval ? (
        <div className="overall-interval">
          95% CI [{formatScore(interval.all.low)}, {formatScore(interval.all.high)}]{' '}
          <span className="muted">
            (bootstrap, {interval.resamples.toLocaleString('en-US')} resamples, seed {interval.seed}
            )
          </span>
        </div>
      ) : null}
      <div className="muted">
        recall@k {formatScore(pair.evidenceRecall.mean)} (n={pair.evidenceRecall.n}) · {note}
      </div>
      {extra.length > 0 && (pair[extra[0]!.id]?.n ?? 0) > 0 ? (
        <>
          <div className="muted mem0-line">
            {extra.map((m) => `${m.label} ${formatScore(pair[m.id]?.mean ?? null)}`).join(' · ')}{' '}
            (n={pair[extra[0]!.id]?.n})
          </div>
          {judges.map((m) => {
            const j = pair[m.id];
            return j && j.n > 0 ? (
              <div key={m.id} className="muted mem0-line">
                judge {m.label} <strong>{formatJudge({ mean: j.mean, std: j.std ?? null })}</strong>{' '}
                (n={j.n}, {j.repeats} {j.repeats === 1 ? 'repeat' : 'repeats'})
              </div>
            ) : null;
          })}
        </>
      ) : null}
    </div>
  );
}

function UsageLine({ label, totals }: { label: string; totals: TokenTotals }) {
  return (
    <span>
      {label}: {formatTokens(totals.calls)} calls
      {totals.failures ? ` (${formatTokens(totals.failures)} failed)` : ''},{' '}
      {formatTokens(totals.promptTokens)} in + {formatTokens(totals.completionTokens)} out tokens,{' '}
      <strong>{formatCost(totals.cost)}</strong>
      {totals.cost === null ? <span className="muted"> (no prices)</span> : null}
    </span>
  );
}
