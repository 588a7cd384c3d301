import { spawn } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '../tests/support/fake-openai-server';
import { expect, startServe, stopServe, test } from './fixtures';

// The fake judge says CORRECT when the answer contains the gold (deterministic).
let fake: FakeOpenAIServer;
test.beforeAll(async () => {
  fake = await startFakeOpenAIServer({});
});
test.afterAll(() => fake.close());

/**
 * Two conversations of 24 questions each, categories 1-4 in turn, each answered by one turn:
 * enough judged answers for a sample of 10 per category (40 to label).
 */
function writeDataset(file: string): void {
  const sample = (n: number) => {
    const turns = Array.from({ length: 24 }, (_, i) => ({
      speaker: i % 2 === 0 ? 'Ann' : 'Bob',
      dia_id: `D1:${i + 1}`,
      text: `Fact ${i + 1} of talk ${n}: the locker code is ${1000 + n * 100 + i}.`,
    }));
    return {
      sample_id: `talk-${n}`,
      conversation: {
        speaker_a: 'Ann',
        speaker_b: 'Bob',
        session_1_date_time: '1:56 pm on 8 May, 2023',
        session_1: turns,
      },
      qa: turns.map((t, i) => ({
        question: `What is locker code number ${i + 1} of talk ${n}?`,
        answer: String(1000 + n * 100 + i),
        evidence: [t.dia_id],
        category: (i % 4) + 1,
      })),
    };
  };
  writeFileSync(file, JSON.stringify([sample(1), sample(2)]));
}

/**
 * Runs the CLI without blocking this process: the fake judge answers from this process's event
 * loop, so a synchronous spawn would leave the rescore waiting on it.
 */
async function cli(args: string[]): Promise<string> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src-main/cli/main.ts', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  expect(code, stderr).toBe(0);
  return stdout;
}

/** Opens a run's labelling mode by URL, as a bookmark or a reload does. */
async function openLabelling(page: Page, url: string, runId: string): Promise<void> {
  await page.goto(`${url}#/runs?run=${runId}&label=1`);
}

test('labelling by keyboard: label 20, reload, resume at 21, export, import into a second data folder, agreement shown', async ({
  page,
}) => {
  test.setTimeout(240_000);
  const dirA = mkdtempSync(join(tmpdir(), 'mw-e2e-labels-a-'));
  const dirB = mkdtempSync(join(tmpdir(), 'mw-e2e-labels-b-'));
  const dataset = join(dirA, 'lockers.json');
  writeDataset(dataset);
  // The run and its judge verdicts (the fake judge under the strict protocol), made by the CLI.
  const { runId } = JSON.parse(
    await cli(['experiment', '--data', dataset, '--data-dir', dirA, '--json']),
  ) as { runId: string };
  await cli([
    ...['rescore', runId, '--judge', 'strict'],
    ...['--judge-base-url', fake.url, '--judge-model', 'fake-judge', '--data-dir', dirA],
  ]);
  // The second data folder: a colleague's copy of the runs database, taken before any label.
  for (const suffix of ['', '-wal'])
    if (existsSync(join(dirA, `runs.db${suffix}`)))
      copyFileSync(join(dirA, `runs.db${suffix}`), join(dirB, `runs.db${suffix}`));

  let server = await startServe(dirA, {}, []);
  try {
    // The dataset open in the app: the evidence turns' text is shown beside each answer.
    await page.goto(server.url);
    await page.getByLabel('Dataset file').setInputFiles(dataset);
    await expect(page.getByRole('region', { name: 'Samples' })).toBeVisible();

    await openLabelling(page, server.url, runId);
    const panel = page.getByRole('region', { name: 'Human labels' });
    // The name is asked once.
    await panel.getByLabel(/Your name/).focus();
    await page.keyboard.type('ann');
    await page.keyboard.press('Enter');
    // No sample yet: 10 per category, seed 0, by keyboard.
    const perCategory = panel.getByLabel('Answers per category');
    await perCategory.focus();
    await page.keyboard.press('Control+a');
    await page.keyboard.type('10');
    await page.keyboard.press('Enter');

    const card = panel.getByRole('article', { name: 'Labelling' });
    await expect(card.getByLabel('Progress')).toHaveText('1 / 40');
    // The judges' verdicts are hidden; the keys are documented in the view.
    await expect(card).not.toContainText(/judge|verdict/i);
    await expect(card).toContainText('c correct');
    await expect(card.getByLabel('Evidence')).toContainText(/the locker code is \d+/);

    // Twenty labels: correct when the prediction holds the gold, else wrong; one back-and-relabel.
    for (let i = 0; i < 20; i++) {
      await expect(card.getByLabel('Progress')).toHaveText(`${i + 1} / 40`);
      const gold = (await card.getByLabel('Gold answer').textContent()) ?? '';
      const prediction = (await card.getByLabel('Prediction').textContent()) ?? '';
      await page.keyboard.press(prediction.includes(gold) ? 'c' : 'w');
    }
    await page.keyboard.press('b');
    await expect(card.getByLabel('Progress')).toHaveText('20 / 40');
    await expect(card.getByLabel('Your label')).not.toHaveText('—');
    // Relabelled: the twentieth becomes unsure, and the view moves on to the 21st.
    await page.keyboard.press('u');
    await expect(card.getByLabel('Progress')).toHaveText('21 / 40');
    await expect(card.getByRole('status')).toHaveText(/all labels saved/);

    // Reload: the labelling mode resumes at the first answer without a label.
    await page.reload();
    await expect(card.getByLabel('Progress')).toHaveText('21 / 40');
    await expect(card.getByLabel('Your label')).toHaveText('—');
    await page.keyboard.press('Escape');
    await expect(panel.getByRole('list', { name: 'Labellers', exact: true })).toContainText(
      /^ann: /,
    );

    // Export: the CSV holds ann's 20 labels.
    const download = page.waitForEvent('download');
    await panel.getByRole('button', { name: 'Export labels CSV' }).focus();
    await page.keyboard.press('Enter');
    const csvFile = join(dirA, 'ann-labels.csv');
    await (await download).saveAs(csvFile);
    const csv = readFileSync(csvFile, 'utf8').trim().split('\n');
    expect(csv[0]).toBe(
      'run_id,sample_id,test_index,question_index,category,labeller,label,labelled_at',
    );
    expect(csv.slice(1)).toHaveLength(20);
    expect(
      csv.slice(1).every((line) => line.startsWith(`${runId},`) && line.includes(',ann,')),
    ).toBe(true);

    await stopServe(server.child);
    // The second data folder: bob labels the same sample, then imports ann's file.
    server = await startServe(dirB, {}, []);
    await page.goto(server.url);
    await page.getByLabel('Dataset file').setInputFiles(dataset);
    await openLabelling(page, server.url, runId);
    await panel.getByLabel(/Your name/).focus();
    await page.keyboard.type('bob');
    await page.keyboard.press('Enter');
    await perCategory.focus();
    await page.keyboard.press('Control+a');
    await page.keyboard.type('10');
    await page.keyboard.press('Enter');
    // The same seed and size give the same sample in the same order as in the first folder.
    await expect(card.getByLabel('Progress')).toHaveText('1 / 40');
    for (let i = 0; i < 20; i++) {
      await expect(card.getByLabel('Progress')).toHaveText(`${i + 1} / 40`);
      await page.keyboard.press('c');
    }
    await expect(card.getByRole('status')).toHaveText(/all labels saved/);
    await page.keyboard.press('Escape');

    await panel.getByLabel('Import labels CSV').setInputFiles(csvFile);
    await expect(panel.getByRole('status').first()).toHaveText('Imported 20 labels by ann.');
    const figures = panel.getByRole('region', { name: 'Agreement with human labels' });
    await expect(figures.getByRole('list', { name: 'Agreement between labellers' })).toContainText(
      /ann – bob: agreement \d\.\d{3} \[/,
    );
    await expect(figures.getByRole('list', { name: 'Labellers', exact: true })).toContainText(
      'bob: 20 correct',
    );
    const judgeTable = figures.getByRole('table', { name: 'Judge vs human labels' });
    await expect(judgeTable.getByRole('row', { name: /strict · fake-judge/ })).toBeVisible();
    await expect(judgeTable).toContainText('J corrected (Rogan-Gladen)');
  } finally {
    await stopServe(server.child);
    rmSync(dirA, { recursive: true, force: true });
    rmSync(dirB, { recursive: true, force: true });
  }
});
