import type { RunManifest } from './runs';

export type { RunCoverage } from './runs';

/**
 * Why a run's headline n differs from its dataset's question count (issue 11 item 4). The
 * runner records the counts in the manifest when the run starts; this turns them and the summary's
 * n into the note printed beside the headline by the CLI and shown by the Runs view.
 */

export interface CoverageNote {
  n: number;
  /** The dataset's question count (valid samples). */
  expected: number;
  /** One phrase per reason, in the order the counts are taken off. */
  reasons: string[];
  /** "n = 1,982 of the dataset's 1,986 questions: 4 without usable evidence left out (opt-out)". */
  text: string;
  /**
   * Every question left out was left out by choice (samples or categories picked, no-evidence
   * opt-out): worth saying, not a warning. False when samples were invalid, answers are missing
   * or errored.
   */
  deliberate: boolean;
}

const count = (n: number): string => n.toLocaleString('en-US');

/** The note for a run whose n is not the dataset's count; null when it is, or when unknown. */
export function coverageNote(
  manifest: Pick<RunManifest, 'coverage' | 'skippedSamples'>,
  summary: { questions: number; errors: number },
): CoverageNote | null {
  const coverage = manifest.coverage;
  const skipped = manifest.skippedSamples?.length ?? 0;
  if (!coverage) return null;
  const n = summary.questions;
  if (n === coverage.datasetQuestions && skipped === 0) return null;
  const reasons: string[] = [];
  if (coverage.noEvidenceExcluded > 0)
    reasons.push(
      `${count(coverage.noEvidenceExcluded)} without usable evidence left out (opt-out: --exclude-no-evidence)`,
    );
  const categoriesNotAsked = coverage.categoriesNotAsked ?? 0;
  if (categoriesNotAsked > 0)
    reasons.push(
      `${count(categoriesNotAsked)} of categories the run does not ask (questionCategories)`,
    );
  if (coverage.notSelected > 0)
    reasons.push(`${count(coverage.notSelected)} in samples not selected (sample selection)`);
  if (skipped > 0) reasons.push(`${skipped} invalid sample(s) skipped (--skip-invalid)`);
  const missing =
    coverage.datasetQuestions -
    coverage.noEvidenceExcluded -
    categoriesNotAsked -
    coverage.notSelected -
    n;
  const deliberate = skipped === 0 && missing <= 0 && summary.errors === 0;
  if (missing > 0)
    reasons.push(`${count(missing)} never answered (the run stopped early or a sample failed)`);
  if (summary.errors > 0)
    reasons.push(`${count(summary.errors)} of the ${count(n)} answers are errors (scored 0)`);
  const text =
    `n = ${count(n)} of the dataset's ${count(coverage.datasetQuestions)} questions` +
    (skipped > 0 ? ' (valid samples)' : '') +
    (reasons.length > 0 ? `: ${reasons.join('; ')}` : '');
  return { n, expected: coverage.datasetQuestions, reasons, text, deliberate };
}
