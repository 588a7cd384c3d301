import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PunktSentenceTokenizer } from '../../../src-shared/scoring/punkt';
import { findPunktModel, nltkDataDirs, readPunktModel } from './punktModel';

/** A punkt_tab/english folder with a made-up model, under a fresh NLTK data folder. */
function writeModel(files: Partial<Record<string, string>> = {}): string {
  const dataDir = mkdtempSync(join(tmpdir(), 'nltk-data-'));
  const dir = join(dataDir, 'tokenizers', 'punkt_tab', 'english');
  mkdirSync(dir, { recursive: true });
  const contents: Record<string, string> = {
    'abbrev_types.txt': 'dr\nu.s\n',
    'collocations.tab': '##number##\tmay\r\n',
    'sent_starters.txt': 'however\n',
    'ortho_context.tab': 'she\t34\nmay\t48\n',
    ...files,
  };
  for (const [name, text] of Object.entries(contents)) writeFileSync(join(dir, name), text ?? '');
  return dataDir;
}

describe('NLTK punkt_tab model', () => {
  it('is found on $NLTK_DATA before the home and system folders, as NLTK searches', () => {
    const dataDir = writeModel();
    const dirs = nltkDataDirs({ NLTK_DATA: dataDir, HOME: '/nonexistent-home' });
    expect(dirs[0]).toBe(dataDir);
    expect(dirs[1]).toBe(join('/nonexistent-home', 'nltk_data'));
    const model = findPunktModel(dirs);
    expect(model?.dir).toBe(join(dataDir, 'tokenizers', 'punkt_tab', 'english'));
    expect(model?.params.collocations.has('##number##\tmay')).toBe(true);
    expect(model?.params.orthoContext.get('may')).toBe(48);
  });

  it('is absent (null) where no folder holds it', () => {
    expect(findPunktModel([mkdtempSync(join(tmpdir(), 'empty-'))])).toBeNull();
  });

  it('splits sentences with what it read: "dr." is an abbreviation, "home." is not', () => {
    const model = readPunktModel(join(writeModel(), 'tokenizers', 'punkt_tab', 'english'));
    const punkt = new PunktSentenceTokenizer(model.params);
    expect(punkt.tokenize('he saw dr. who. she went home. ok')).toEqual([
      'he saw dr. who.',
      'she went home.',
      'ok',
    ]);
  });

  it('hashes the model so a run records which one scored it', () => {
    const a = readPunktModel(join(writeModel(), 'tokenizers', 'punkt_tab', 'english'));
    const b = readPunktModel(
      join(writeModel({ 'abbrev_types.txt': 'dr\n' }), 'tokenizers', 'punkt_tab', 'english'),
    );
    expect(a.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(a.sha256).not.toBe(b.sha256);
  });

  it('refuses a malformed line, naming the file and the line', () => {
    const dataDir = writeModel({ 'ortho_context.tab': 'she\t34\nmay forty\n' });
    const file = join(dataDir, 'tokenizers', 'punkt_tab', 'english', 'ortho_context.tab');
    expect(() => findPunktModel([dataDir])).toThrow(
      `Punkt model: ${file} line 2 is not two tab-separated fields`,
    );
  });
});
