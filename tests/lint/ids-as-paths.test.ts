import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Issue 39 item 3: an id that came from a dataset, a job, a service or an API call (a sample id
 * `..`) becomes part of a path only through `core/path-component.ts` (`pathComponentOf`,
 * `joinIds`). So no other source file hands an id-named value to `join`/`resolve`, nor builds a
 * path string around one. The lint reads names, not types: an id renamed to hide it from this
 * test is the reviewer's to catch. Tests are exempt: they build paths to their own fixtures.
 */
const repo = fileURLToPath(new URL('../../', import.meta.url));
const OWNER = 'src-main/core/path-component.ts';
/** Files that join a name which is not an outside id, and why. */
const EXEMPT: Record<string, string> = {
  'src-main/core/collection/hybrid-collection.ts':
    'index files are named by index names, which the design schema allows only as [A-Za-z0-9_-] (DESIGN_INDEX_NAME_PATTERN)',
  'src-main/core/sqlite.ts': "fileName is its caller's constant (the cache files)",
  'src-main/core/embed/winkFixture.ts': 'writes test fixtures under names the tests choose',
};

/** A value named as an id: sampleId, runId, jobId, datasetId, playground id, collection name… */
const ID = String.raw`\b(?:\w*Ids?|id|ids|\w*Name|name|collection)\b`;
/** `join(a, sampleId)`, `resolve(dir, runId, …)`: an id among a path call's arguments. */
const PATH_CALL_WITH_ID = new RegExp(String.raw`\b(?:join|resolve)\((?:[^()]|\([^()]*\))*${ID}`);
/** A path template `${dir}/${id}` or `${id}.json`: a folder or a file suffix beside an id. */
const PATH_TEMPLATE_WITH_ID = new RegExp(
  String.raw`\$\{[^}]*${ID}[^}]*\}\.(?:json|db)\b|\$\{\w*(?:[dD]ir|[rR]oot|[bB]ase|[pP]ath)\}/\$\{[^}]*${ID}`,
);
/** Calls of `join`/`resolve` that are not paths (arrays, promises). */
const NOT_A_PATH = /\.join\(|(?<![\w.])resolve\((?!dir|base|root|file|path)/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return /\.ts$/.test(e.name) && !/\.test\.ts$/.test(e.name) ? [path] : [];
  });
}

function pathsBuiltFromIds(text: string): string[] {
  return text.split('\n').filter((raw) => {
    if (/^\s*(\/\/|\*|\/\*)/.test(raw)) return false;
    // Quoted text is not a value: 'hybrid-collection-' names no id.
    const line = raw.replace(/'[^']*'/g, "''");
    const call = PATH_CALL_WITH_ID.exec(line);
    const isPathCall = call !== null && !NOT_A_PATH.test(call[0]);
    return isPathCall || PATH_TEMPLATE_WITH_ID.test(line);
  });
}

describe('ids never become paths but through core/path-component.ts', () => {
  it('no source file under src-main builds a path from an id-named value', () => {
    const offenders = sourceFiles(join(repo, 'src-main'))
      .map((file) => relative(repo, file).split('\\').join('/'))
      .filter((file) => file !== OWNER && !(file in EXEMPT))
      .flatMap((file) =>
        pathsBuiltFromIds(readFileSync(join(repo, file), 'utf8')).map(
          (l) => `${file}: ${l.trim()}`,
        ),
      );
    expect(offenders).toEqual([]);
  });

  it('the rule sees the shapes it is for', () => {
    for (const line of [
      "  return join(dataDir, 'collections', runId, sampleId.replace(/[^A-Za-z0-9._-]/g, '_'));",
      "rmSync(join(options.dataDir, 'collections', runId), { recursive: true });",
      '  dir: join(this.root, id),',
      'const file = `${dir}/${datasetId}`;',
      'const file = `${sha}-${runId}.json`;',
      'const path = resolve(base, job.name);',
    ])
      expect(pathsBuiltFromIds(line), line).toHaveLength(1);
    for (const line of [
      "  return joinIds(join(dataDir, 'collections'), runId);",
      "io.stdout(`${ids.join(', ')}`);",
      'resolve(value);',
      "mkdtempSync(join(tmpdir(), 'hybrid-collection-'));",
      'lists.push({ index: `${tier.name}/${search.index}`, weight, hits });',
    ])
      expect(pathsBuiltFromIds(line), line).toEqual([]);
  });
});
