import type { TestPlanOptions } from '../../../src-shared/dataset/packets';
import type {
  CategoryCounts,
  DatasetStats,
  EvidenceProblemDetail,
  GroupStats,
  SampleStats,
} from '../../../src-shared/dataset/stats';
import type { Sample } from '../../../src-shared/dataset/types';
import { type BenchmarkProfile } from '../../../src-shared/benchmarks';
import { isRepair, isUnresolved } from './evidence';
import { packetCount } from './packets';
import { planTests } from './testPlan';

/** A zero for every category of the benchmark, in its order. */
const emptyCounts = (profile: BenchmarkProfile): CategoryCounts =>
  Object.fromEntries(profile.categories.map((c) => [c.id, 0]));

export function sampleStats(
  sample: Sample,
  options: TestPlanOptions,
  profile: BenchmarkProfile,
): SampleStats {
  const turns = sample.sessions.flatMap((s) => s.turns);
  const byCategory = emptyCounts(profile);
  for (const qa of sample.qa) byCategory[qa.category] = (byCategory[qa.category] ?? 0) + 1;
  const problems = sample.qa.flatMap((qa) => qa.evidenceProblems);
  const plan = planTests(sample, options);
  return {
    sampleId: sample.sampleId,
    sessions: sample.sessions.length,
    turns: turns.length,
    imageTurns: turns.filter((t) => t.imageUrls !== undefined || t.blipCaption !== undefined)
      .length,
    qa: sample.qa.length,
    packets: packetCount(sample),
    questionsWithEvidence: sample.qa.filter((qa) => qa.evidence.length > 0).length,
    plannedQuestions: plan.totalQuestions,
    testThreshold: plan.threshold,
    plannedTests: plan.tests.length,
    byCategory,
    sessionTurnCounts: sample.sessions.map((s) => ({ session: s.index, turns: s.turns.length })),
    evidenceRepaired: problems.filter(isRepair).length,
    evidenceUnresolved: problems.filter(isUnresolved).length,
    ...(sample.group !== undefined ? { group: sample.group } : {}),
  };
}

export function datasetStats(
  samples: readonly Sample[],
  options: TestPlanOptions,
  profile: BenchmarkProfile,
): DatasetStats {
  const tally = new DatasetStatsTally(options, profile);
  for (const sample of samples) tally.add(sample);
  return tally.stats();
}

function groupTotals(perSample: readonly SampleStats[], profile: BenchmarkProfile): GroupStats[] {
  const groups = new Map<string, GroupStats>();
  for (const s of perSample) {
    const name = s.group ?? '(none)';
    const g = groups.get(name) ?? {
      group: name,
      samples: 0,
      turns: 0,
      qa: 0,
      byCategory: emptyCounts(profile),
    };
    g.samples += 1;
    g.turns += s.turns;
    g.qa += s.qa;
    for (const c of profile.categories) {
      g.byCategory[c.id] = (g.byCategory[c.id] ?? 0) + (s.byCategory[c.id] ?? 0);
    }
    groups.set(name, g);
  }
  return [...groups.values()];
}

/**
 * The dataset's stats built one sample at a time, keeping only the numbers: a streamed file
 * (LongMemEval M) is summarised without holding its haystacks.
 */
export class DatasetStatsTally {
  readonly #perSample: SampleStats[] = [];
  readonly #details: EvidenceProblemDetail[] = [];

  constructor(
    private readonly options: TestPlanOptions,
    private readonly profile: BenchmarkProfile,
  ) {}

  add(sample: Sample): void {
    this.#perSample.push(sampleStats(sample, this.options, this.profile));
    for (const qa of sample.qa) {
      for (const p of qa.evidenceProblems) {
        this.#details.push({ sampleId: sample.sampleId, qaIndex: qa.index, ...p });
      }
    }
  }

  stats(): DatasetStats {
    const { profile } = this;
    const perSample = [...this.#perSample];
    const details = [...this.#details];
    const sum = (pick: (s: SampleStats) => number): number =>
      perSample.reduce((total, s) => total + pick(s), 0);
    const byCategory = emptyCounts(profile);
    for (const s of perSample) {
      for (const c of profile.categories)
        byCategory[c.id] = (byCategory[c.id] ?? 0) + (s.byCategory[c.id] ?? 0);
    }
    return {
      totals: {
        samples: perSample.length,
        sessions: sum((s) => s.sessions),
        turns: sum((s) => s.turns),
        imageTurns: sum((s) => s.imageTurns),
        qa: sum((s) => s.qa),
        packets: sum((s) => s.packets),
        questionsWithEvidence: sum((s) => s.questionsWithEvidence),
        plannedTests: sum((s) => s.plannedTests),
        byCategory,
        ...(perSample.some((s) => s.group !== undefined)
          ? { byGroup: groupTotals(perSample, profile) }
          : {}),
      },
      samples: perSample,
      evidence: {
        repaired: details.filter(isRepair).length,
        unresolved: details.filter(isUnresolved).length,
        duplicates: details.filter((d) => d.problem === 'duplicate').length,
        questionsWithoutEvidence: sum((s) => s.qa - s.questionsWithEvidence),
        details,
      },
    };
  }
}
