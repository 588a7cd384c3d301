import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

/**
 * src-shared loads in every process, the browser included, and each index kind's engine lives
 * there (src-shared/index-kinds/<type>.ts). The engine's storage and indexes (better-sqlite3,
 * hnswlib-node, flexsearch) stay in the core behind the KindContext's ports; this checks that the
 * repository's lint config refuses them in src-shared and still lets a kind import zod.
 */
const eslint = new ESLint({ cwd: process.cwd() });

async function importErrors(file: string, specifier: string): Promise<string[]> {
  const [result] = await eslint.lintText(
    `import type { X } from '${specifier}';\nexport type Y = X;\n`,
    { filePath: file },
  );
  return (result?.messages ?? [])
    .filter((m) => m.ruleId === 'no-restricted-imports')
    .map((m) => m.message);
}

describe('src-shared imports', () => {
  it.each([
    ['better-sqlite3', 'through its KindContext'],
    ['hnswlib-node', 'through its KindContext'],
    ['flexsearch', 'through its KindContext'],
    ['node:path', 'must not import Node built-ins'],
    ['../../src-main/core/collection/vector-index', 'imports nothing from the processes'],
  ])('an index kind importing %s is refused', async (specifier, message) => {
    const errors = await importErrors('src-shared/index-kinds/vector.ts', specifier);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(message);
  });

  it('an index kind may import zod and its siblings', async () => {
    expect(await importErrors('src-shared/index-kinds/vector.ts', 'zod')).toEqual([]);
    expect(await importErrors('src-shared/index-kinds/vector.ts', './engine')).toEqual([]);
  });
});
