import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { WorkbenchError } from '../../../src-shared/errors';
import { setMem0SentenceSplitter } from '../../../src-shared/scoring/mem0';
import type { PunktParameters } from '../../../src-shared/scoring/punkt';

/**
 * NLTK's trained English Punkt model in its text form (`punkt_tab/english`, NLTK ≥ 3.8.2: install
 * it with `python -m nltk.downloader punkt_tab`). It is NLTK's data, so the workbench does not ship
 * it: it is found where NLTK itself looks, and Mem0's BLEU-1 tokenises exactly like
 * `nltk.word_tokenize` only when it is found (see docs/scoring.md).
 */
export interface PunktModel {
  params: PunktParameters;
  /** The folder it was read from. */
  dir: string;
  /** sha256 over the four files, for the run manifest. */
  sha256: string;
}

const FILES = ['abbrev_types.txt', 'collocations.tab', 'sent_starters.txt', 'ortho_context.tab'];

/** NLTK's data search path (nltk.data.path) on POSIX and Windows, `$NLTK_DATA` first. */
export function nltkDataDirs(env: NodeJS.ProcessEnv = process.env): string[] {
  const fromEnv = (env['NLTK_DATA'] ?? '').split(delimiter).filter((dir) => dir !== '');
  const home = env['HOME'] ?? homedir();
  const system =
    process.platform === 'win32'
      ? [
          join(env['APPDATA'] ?? home, 'nltk_data'),
          'C:\\nltk_data',
          'D:\\nltk_data',
          'E:\\nltk_data',
        ]
      : [
          '/usr/share/nltk_data',
          '/usr/local/share/nltk_data',
          '/usr/lib/nltk_data',
          '/usr/local/lib/nltk_data',
        ];
  return [...fromEnv, join(home, 'nltk_data'), ...system];
}

/** The first `tokenizers/punkt_tab/english` on the search path, or null when there is none. */
export function findPunktModel(dirs: readonly string[] = nltkDataDirs()): PunktModel | null {
  for (const dataDir of dirs) {
    const dir = join(dataDir, 'tokenizers', 'punkt_tab', 'english');
    if (FILES.every((file) => existsSync(join(dir, file)))) return readPunktModel(dir);
  }
  return null;
}

/** Reads a `punkt_tab/<language>` folder; a malformed line is an error naming file and line. */
export function readPunktModel(dir: string): PunktModel {
  const hash = createHash('sha256');
  const lines = (file: string): string[] => {
    const text = readFileSync(join(dir, file), 'utf8');
    hash.update(`${file}\u0000${text}\u0000`);
    return text.split('\n').map((line) => line.replace(/\r$/, ''));
  };
  const list = (file: string): Set<string> => new Set(lines(file).filter((line) => line !== ''));
  const pairs = (file: string): Array<[string, string, number]> =>
    lines(file).flatMap((line, index): Array<[string, string, number]> => {
      if (line === '') return [];
      const parts = line.split('\t');
      if (parts.length !== 2) {
        throw new WorkbenchError(
          'INVALID_INPUT',
          `Punkt model: ${join(dir, file)} line ${index + 1} is not two tab-separated fields`,
        );
      }
      return [[parts[0] as string, parts[1] as string, index + 1]];
    });

  const abbrevTypes = list('abbrev_types.txt');
  const sentStarters = list('sent_starters.txt');
  const collocations = new Set(pairs('collocations.tab').map(([a, b]) => `${a}\t${b}`));
  const orthoContext = new Map<string, number>();
  for (const [type, flags, line] of pairs('ortho_context.tab')) {
    const value = Number(flags);
    if (!Number.isInteger(value) || value < 0) {
      throw new WorkbenchError(
        'INVALID_INPUT',
        `Punkt model: ${join(dir, 'ortho_context.tab')} line ${line} has flags "${flags}", not a whole number`,
      );
    }
    orthoContext.set(type, value);
  }
  return {
    params: { abbrevTypes, collocations, sentStarters, orthoContext },
    dir,
    sha256: hash.digest('hex'),
  };
}

/** What scored this process's BLEU-1: NLTK's English Punkt model (its sha256), or none found. */
export interface PunktInstall {
  /** sha256 of the punkt_tab files, or null: sentences split without NLTK's parameters. */
  sha256: string | null;
  dir: string | null;
}

let installed: PunktInstall | undefined;

/**
 * Makes Mem0's BLEU-1 tokenise with NLTK's English Punkt model when one is installed where NLTK
 * looks (once per process or worker thread: module state is per thread). Without one, BLEU-1
 * splits sentences with no abbreviation list and the run manifest says so.
 */
export function installPunktModel(dirs?: readonly string[]): PunktInstall {
  if (installed && dirs === undefined) return installed;
  const model = findPunktModel(dirs);
  if (model) setMem0SentenceSplitter(model.params);
  installed = { sha256: model?.sha256 ?? null, dir: model?.dir ?? null };
  return installed;
}
