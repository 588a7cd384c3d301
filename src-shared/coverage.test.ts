import { describe, expect, it } from 'vitest';
import { coverageNote } from './coverage';

describe('coverageNote', () => {
  const full = { datasetQuestions: 1986, notSelected: 0, noEvidenceExcluded: 0 };

  it('says nothing when n is the dataset count, or when the run predates the counts', () => {
    expect(coverageNote({ coverage: full }, { questions: 1986, errors: 3 })).toBeNull();
    expect(coverageNote({}, { questions: 12, errors: 0 })).toBeNull();
  });

  it('names each reason n is below the dataset count', () => {
    const note = coverageNote(
      { coverage: { datasetQuestions: 1986, notSelected: 1787, noEvidenceExcluded: 1 } },
      { questions: 190, errors: 2 },
    );
    expect(note?.text).toBe(
      "n = 190 of the dataset's 1,986 questions: 1 without usable evidence left out " +
        '(opt-out: --exclude-no-evidence); 1,787 in samples not selected (sample selection); ' +
        '8 never answered (the run stopped early or a sample failed); 2 of the 190 answers are ' +
        'errors (scored 0)',
    );
    expect(note?.expected).toBe(1986);
  });

  it('names the categories a run does not ask apart from questions without evidence', () => {
    // Mem0's question set: categories 1-4 of locomo10.json, its 446 adversarial questions not asked.
    const note = coverageNote(
      {
        coverage: {
          datasetQuestions: 1986,
          notSelected: 0,
          noEvidenceExcluded: 0,
          categoriesNotAsked: 446,
        },
      },
      { questions: 1540, errors: 0 },
    );
    expect(note?.text).toBe(
      "n = 1,540 of the dataset's 1,986 questions: 446 of categories the run does not ask (questionCategories)",
    );
  });

  it('reports skipped invalid samples even when every valid question was asked', () => {
    const note = coverageNote(
      {
        coverage: { datasetQuestions: 10, notSelected: 0, noEvidenceExcluded: 0 },
        skippedSamples: [{ sampleIndex: 1, sampleId: 'x', problems: ['qa: missing'] }],
      },
      { questions: 10, errors: 0 },
    );
    expect(note?.text).toBe(
      "n = 10 of the dataset's 10 questions (valid samples): 1 invalid sample(s) skipped (--skip-invalid)",
    );
  });

  it('a deliberate sample selection is a note, not a warning; a missing answer is a warning', () => {
    const coverage = { datasetQuestions: 8, notSelected: 1, noEvidenceExcluded: 0 };
    expect(coverageNote({ coverage }, { questions: 7, errors: 0 })?.deliberate).toBe(true);
    expect(coverageNote({ coverage }, { questions: 6, errors: 0 })?.deliberate).toBe(false);
    expect(coverageNote({ coverage }, { questions: 7, errors: 1 })?.deliberate).toBe(false);
  });
});
