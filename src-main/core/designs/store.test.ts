import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CollectionDesignInput } from '../../../src-shared/designs';
import type { WorkbenchError } from '../../../src-shared/errors';
import { DESIGNS_FILE, DesignStore } from './store';

let dir: string;
const fixedNow = () => new Date('2024-06-01T12:00:00.000Z');
const open = () => new DesignStore(dir, { now: fixedNow });

const design = (name: string, capacity = 10): CollectionDesignInput => ({
  name,
  indexes: [
    { name: 'text', type: 'text' },
    { name: 'recent', type: 'fifo', capacity },
  ],
});

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mw-designs-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('DesignStore', () => {
  it('saves atomically, replaces by name, reloads, and deletes', () => {
    const store = open();
    expect(store.list()).toEqual({ designs: [], problems: [] });
    store.save(design('b'));
    store.save(design('a'));
    const saved = store.save(design('b', 99));
    expect(saved.savedAt).toBe('2024-06-01T12:00:00.000Z');
    // Only the file itself: the temp file was renamed over it, not left beside it.
    expect(readdirSync(dir)).toEqual([DESIGNS_FILE]);
    const file = JSON.parse(readFileSync(join(dir, DESIGNS_FILE), 'utf8')) as { version: number };
    expect(file.version).toBe(1);

    const reopened = open().list();
    expect(reopened.designs.map((d) => d.design.name)).toEqual(['a', 'b']);
    expect(reopened.designs[1]?.design.indexes[1]).toEqual({
      name: 'recent',
      type: 'fifo',
      capacity: 99,
    });
    expect(open().delete('a')).toBe(true);
    expect(open().delete('a')).toBe(false);
    expect(
      open()
        .list()
        .designs.map((d) => d.design.name),
    ).toEqual(['b']);
  });

  it('refuses an invalid design with the field named, and keeps the file as it was', () => {
    const store = open();
    store.save(design('keep'));
    const before = readFileSync(join(dir, DESIGNS_FILE), 'utf8');
    expect(() => store.save(design('bad', 0))).toThrow('design: indexes[1].capacity: must be >= 1');
    try {
      store.save(design('bad', 0));
    } catch (error) {
      expect((error as WorkbenchError).path).toEqual(['design', 'indexes', 1, 'capacity']);
    }
    expect(readFileSync(join(dir, DESIGNS_FILE), 'utf8')).toBe(before);
  });

  it('sets a corrupt file aside, reports it, and does not overwrite it', () => {
    writeFileSync(join(dir, DESIGNS_FILE), '{"version": 1, "designs": [');
    const store = open();
    const list = store.list();
    expect(list.designs).toEqual([]);
    const bad = join(dir, `${DESIGNS_FILE}.bad-2024-06-01T12-00-00-000Z`);
    expect(list.problems).toEqual([
      {
        message: expect.stringMatching(
          /^designs\.json could not be read \(not JSON: .*\); it was kept as .*bad-2024/,
        ),
        movedTo: bad,
      },
    ]);
    expect(readFileSync(bad, 'utf8')).toBe('{"version": 1, "designs": [');
    store.save(design('fresh'));
    expect(readFileSync(bad, 'utf8')).toBe('{"version": 1, "designs": [');
    expect(open().list()).toEqual({
      designs: [expect.objectContaining({ savedAt: '2024-06-01T12:00:00.000Z' })],
      problems: [],
    });
  });

  it('keeps the valid designs of a file that holds an invalid one, and the whole file aside', () => {
    const good = { design: { ...design('good') }, savedAt: '2024-01-01T00:00:00.000Z' };
    const broken = { design: { ...design('broken'), indexes: [] }, savedAt: 'x' };
    const content = JSON.stringify({ version: 1, designs: [good, broken] });
    writeFileSync(join(dir, DESIGNS_FILE), content);
    const list = open().list();
    expect(list.designs.map((d) => d.design.name)).toEqual(['good']);
    expect(list.problems[0]?.message).toContain(
      'designs[1]: indexes: must hold at least one index',
    );
    expect(list.problems[0]?.message).toContain('its 1 valid design(s) were kept');
    expect(readFileSync(list.problems[0]?.movedTo ?? '', 'utf8')).toBe(content);
    // The valid design was written back at once: a restart still finds it.
    expect(
      open()
        .list()
        .designs.map((d) => d.design.name),
    ).toEqual(['good']);
  });

  it('sets aside a file from a newer version instead of misreading it', () => {
    writeFileSync(join(dir, DESIGNS_FILE), JSON.stringify({ version: 2, designs: [] }));
    const list = open().list();
    expect(list.problems[0]?.message).toContain('unexpected shape at version');
  });
});
