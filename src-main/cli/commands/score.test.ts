import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../main';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const lme = join(repo, 'tests/fixtures/longmemeval/longmemeval_s.json');
const dir = mkdtempSync(join(tmpdir(), 'workbench-score-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('cli score', () => {
  it("prints a LongMemEval dataset's table by its question types, not LoCoMo's categories", async () => {
    const questions = JSON.parse(readFileSync(lme, 'utf8')) as Array<{ question_id: string }>;
    const predictions = join(dir, 'predictions.json');
    writeFileSync(
      predictions,
      JSON.stringify(
        questions.map((q) => ({
          sampleId: q.question_id,
          questionIndex: 0,
          prediction: 'no idea',
        })),
      ),
    );
    let out = '';
    let err = '';
    const code = await runCli(['score', '--data', lme, '--predictions', predictions], {
      stdout: (t) => void (out += t),
      stderr: (t) => void (err += t),
    });
    expect(err).toBe('');
    expect(code).toBe(0);
    expect(out).toContain('categories named by LongMemEval paper scheme');
    expect(out).toMatch(/^3 single-session-preference +1 /m);
    expect(out).toMatch(/^10 abstention \(multi-session\) +1 /m);
    expect(out).not.toMatch(/open-domain|adversarial|official LoCoMo/);
  });

  it('reads the judge flags as experiment does: a bad --judge-repeats is the same usage error', async () => {
    const judge = ['--judge-base-url', 'http://127.0.0.1:9/v1', '--judge-model', 'm'];
    const run = async (args: string[]) => {
      let err = '';
      const code = await runCli([...args, ...judge, '--judge-repeats', '0'], {
        stdout: () => undefined,
        stderr: (t) => void (err += t),
      });
      return { code, err: err.split('\n')[0] };
    };
    const score = await run(['score', '--data', lme, '--predictions', join(dir, 'none.json')]);
    const experiment = await run(['experiment', '--data', lme, '--dry-run']);
    expect(score).toEqual({
      code: 2,
      err: 'error: --judge-repeats must be a positive integer (got "0")',
    });
    expect(score).toEqual(experiment);
  });
});
