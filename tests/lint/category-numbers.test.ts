import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * What a category number means belongs to its benchmark profile (src-shared/benchmarks/): LoCoMo's
 * 2 is temporal, LongMemEval's 2 is single-session-assistant. So no source file outside a profile
 * folder compares a category to a number; it asks the profile (`wantsDateHint`, `isAdversarial`,
 * `isCategoryNumber`). Tests are exempt: they know their fixture's numbers.
 */
const repo = fileURLToPath(new URL('../../', import.meta.url));
const ROOTS = ['src-shared', 'src-main', 'src-renderer', 'scripts'];
const PROFILE_FOLDERS = ['src-shared/benchmarks/'];

const OP = String.raw`(?:===|!==|==|!=|<=|>=|<|>)`;
/** `category === 2`, `qa.category!==5`, `2 === request.category`, `category < 1`. */
const NUMERIC_CATEGORY_COMPARISON = new RegExp(
  String.raw`\bcategory\s*${OP}\s*\d|(?<![\w.])\d+(?:\.\d+)?\s*${OP}\s*[\w.?]*\bcategory\b`,
);

function numericCategoryComparisons(text: string): string[] {
  return text.split('\n').filter((line) => NUMERIC_CATEGORY_COMPARISON.test(line));
}

function sourceFiles(dir: string): string[] {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : sourceFiles(path);
    return /\.tsx?$/.test(e.name) && !/\.test\.tsx?$/.test(e.name) ? [path] : [];
  });
}

describe('category numbers', () => {
  it('recognises a numeric category comparison, and not a count of categories', () => {
    expect(numericCategoryComparisons('if (request.category === 2) return x;')).toHaveLength(1);
    expect(numericCategoryComparisons('a.filter((q) => 5 !== q.category)')).toHaveLength(1);
    expect(numericCategoryComparisons('if (part === "" || category < 1)')).toHaveLength(1);
    expect(numericCategoryComparisons('if (categoriesNotAsked > 0) n++;')).toEqual([]);
    expect(numericCategoryComparisons('--scheme <official|mem0>  category names')).toEqual([]);
    expect(numericCategoryComparisons('rows.filter((r) => r.category === c.id)')).toEqual([]);
  });

  it('are compared to numbers only inside benchmark profile folders', () => {
    const files = ROOTS.flatMap((root) => sourceFiles(join(repo, root)));
    expect(files.length).toBeGreaterThan(100);
    const found = files.flatMap((file) => {
      const rel = relative(repo, file).split('\\').join('/');
      if (PROFILE_FOLDERS.some((folder) => rel.startsWith(folder))) return [];
      return numericCategoryComparisons(readFileSync(file, 'utf8')).map(
        (line) => `${rel}: ${line.trim()}`,
      );
    });
    expect(found).toEqual([]);
  });
});
