import { cpSync, mkdtempSync, readdirSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SOURCE = fileURLToPath(new URL('../fixtures/beam', import.meta.url));

let tree: string | undefined;

/**
 * The BEAM fixtures in BEAM's own layout, in a temp folder made once per process. They are kept
 * as `probing_questions.fixture.json` because the repository must never track a file named like
 * BEAM's data (the licence check matches the name); the copy gives them the name the loader reads.
 */
export function beamFixtureTree(): string {
  if (tree !== undefined) return tree;
  const root = mkdtempSync(join(tmpdir(), 'workbench-beam-fixture-'));
  cpSync(SOURCE, root, { recursive: true });
  const rename = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) rename(path);
      else if (entry.name === 'probing_questions.fixture.json')
        renameSync(path, join(dir, 'probing_questions.json'));
    }
  };
  rename(root);
  tree = root;
  return root;
}
