import type { SchemeId } from '../../src-shared/benchmarks';
import type { ExperimentConfig } from '../../src-shared/experiment';
import type { RunIdentity } from '../../src-shared/runs';
import type { LoadedErrata } from '../core/dataset/errata';
import { launchCallChoices, type LaunchCallChoices } from '../core/launch/launch';
import type { RunOptions } from '../core/pipeline/runner';
import type { ApiKeySource } from '../core/keys';
import { repeatGroup, runRepeatGroup } from '../core/sweeps/repeats';
import { repeatTable } from '../core/runs/report';
import type { RunStore } from '../core/runs/store';
import type { CliIO } from './command';
import { runErrata } from '../core/runs/queries';
import { errataExtra } from './runOutput';

/**
 * `experiment --repeats N`: the N runs of one repeat group, then each metric as mean ± std over the
 * complete ones. Exit code 0 only when every repeat completed (a missing repeat would make the
 * std over fewer runs than asked), else 1; rerunning the same command resumes the group.
 */
export async function runRepeats(
  config: ExperimentConfig,
  repeats: number,
  options: {
    store: RunStore;
    dataDir: string;
    keepCollections: boolean;
    apiKeys: ApiKeySource;
    scheme: SchemeId;
    json: boolean;
    io: CliIO;
    signal?: AbortSignal;
    errata?: LoadedErrata;
    /** Every repeat's name, tags and notes (each run also carries its repeat tag). */
    identity?: RunIdentity;
  } & LaunchCallChoices &
    Pick<RunOptions, 'estimate'>,
): Promise<number> {
  const { store, io } = options;
  const group = repeatGroup(config, repeats);
  const outcome = await runRepeatGroup(group, {
    store,
    dataDir: options.dataDir,
    keepCollections: options.keepCollections,
    apiKeys: options.apiKeys,
    mayStartProcesses: true,
    ...(options.errata ? { errata: options.errata } : {}),
    ...(options.identity ? { identity: options.identity } : {}),
    ...launchCallChoices(options),
    ...(options.estimate ? { estimate: options.estimate } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    onCell: (event) => {
      if (event.status === undefined && event.action !== 'skipped') return;
      const seed = event.cell.config.seed;
      io.stderr(
        `repeat ${event.cell.repeat + 1}/${repeats} (seed ${seed}): run ${event.runId} ${event.status ?? event.action}${event.error ? ` (${event.error})` : ''}\n`,
      );
    },
  });
  const { summary, completed } = outcome;
  const seeds = group.cells.map((c) => c.config.seed);
  // Per repeat, not pooled: each repeat's answers differ, so its corrected scores do too, and each
  // table is then exactly what `cli report <run>` prints for that run (the ceiling is the same).
  const errata = options.errata
    ? completed.flatMap((runId) => {
        const scores = runErrata(store, runId);
        return scores ? [{ runId, scores }] : [];
      })
    : [];
  if (options.json) {
    io.stdout(
      `${JSON.stringify({
        repeatGroup: group.sweepId,
        repeats,
        seeds,
        runs: outcome.cells.map((c) => ({ runId: c.runId, status: c.status, error: c.error })),
        completed: completed.length,
        scheme: options.scheme,
        summary,
        ...(options.errata ? { errata: errata.map((e) => ({ runId: e.runId, ...e.scores })) } : {}),
      })}\n`,
    );
  } else {
    // The repeats' own benchmark names the table's categories and overalls.
    const started = outcome.cells.find((c) => c.runId !== null)?.runId;
    if (started) io.stdout(repeatTable(summary, options.scheme, store.profileOf(started)));
    else io.stdout('no repeat started: nothing to summarise\n');
    for (const { runId, scores } of errata) {
      const { text } = errataExtra(scores, options.scheme, store.profileOf(runId));
      io.stdout(`\nrun ${runId} (seed ${store.getRun(runId).manifest.seed}):\n${text}`);
    }
    io.stdout(
      `\nrepeat group ${group.sweepId}: ${completed.length}/${repeats} runs completed (seeds ${seeds.join(', ')}); the runs carry this id as their sweep tag\n`,
    );
    if (completed.length < repeats) {
      io.stdout(
        `mean ± std is over ${completed.length} run(s), not ${repeats}: run the same command again to resume the others\n`,
      );
    }
  }
  return completed.length === repeats ? 0 : 1;
}
