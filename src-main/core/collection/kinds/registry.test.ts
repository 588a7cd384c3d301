import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HybridCollection } from '../hybrid-collection';
import { DB_FILE } from '../schema';
import { makeTempDirs } from '../test-helpers';
import { fifoKind } from '../../../../src-shared/index-kinds/fifo';
import type { AnyIndexEngine } from '../../../../src-shared/index-kinds/engine';
import { findIndexKind, indexKindTypes, registerIndexKind } from './registry';

const temp = makeTempDirs();
afterEach(() => temp.cleanup());

/** A copy of a built-in kind under another type (or member table). */
function kindLike(type: string, memberTable = 'some_members'): AnyIndexEngine {
  return { ...fifoKind, type, memberTable };
}

describe('index kind registry', () => {
  // Which kinds are built in, and that each has its face, is the contract test's
  // (core/designs/kinds-contract.test.ts); these tests hold for any list of kinds.
  it('finds a kind by type', () => {
    expect(indexKindTypes()).toEqual(expect.arrayContaining(['fifo']));
    expect(findIndexKind('fifo')).toBe(fifoKind);
    expect(findIndexKind('nope')).toBeUndefined();
  });

  it('refuses a second kind of the same type, a bad type name and an unsafe table name', () => {
    const before = indexKindTypes();
    // Registering the same object again is a no-op (a module imported twice).
    registerIndexKind(fifoKind);
    expect(() => registerIndexKind(kindLike('fifo'))).toThrow(
      "index kind 'fifo' is already registered",
    );
    expect(() => registerIndexKind(kindLike('Fancy Kind'))).toThrow(
      `index kind type "Fancy Kind" must be 1-32 lowercase letters, digits or '-', starting with a letter`,
    );
    expect(() => registerIndexKind(kindLike('fancy', 'x; DROP TABLE items'))).toThrow(
      `index kind 'fancy': member table "x; DROP TABLE items" must be a plain SQL identifier`,
    );
    expect(indexKindTypes()).toEqual(before);
  });

  it('refuses to open a collection holding an index of a kind this build does not know', () => {
    const dir = temp.make();
    HybridCollection.open(dir).close();
    const db = new Database(join(dir, DB_FILE));
    db.prepare(
      "INSERT INTO indexes (name, type, config, created_at) VALUES ('later', 'exact', '{}', 1)",
    ).run();
    db.close();
    expect(() => HybridCollection.open(dir, { name: 'future-kind' })).toThrow(
      `HybridCollection 'future-kind': index 'later' has type 'exact', which this build does not know (known: ${indexKindTypes().join(', ')})`,
    );
  });
});
