import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Sample, Turn } from '../../../src-shared/dataset';
import {
  CollectionDesignSchema,
  DESIGN_INDEX_TYPES,
  designIndexSchema,
  newDesignIndex,
  type DesignIndex,
} from '../../../src-shared/designs';
import { numberBounds } from '../../../src-shared/index-kinds/fields';
import { INDEX_KINDS } from '../../../src-shared/index-kinds/registry';
import { findIndexKind, indexKindTypes } from '../collection/kinds/registry';
import { makeTempDirs } from '../collection/test-helpers';
import { DesignedCollection, collectionConfig } from './engine';

/**
 * The contract between the index kinds (src-shared/index-kinds/registry.ts, face and engine in
 * one object each) and every list derived from them: the collection's kind registry
 * (src-main/core/collection/kinds/registry.ts), the design schema, and the designs engine. It
 * walks the registry rather than naming kinds, so a new kind is checked by adding it, not by
 * editing this file.
 */

const temp = makeTempDirs();
afterEach(() => temp.cleanup());

const faceTypes = INDEX_KINDS.map((f) => f.type);

describe('index kind faces', () => {
  it('are the engines the collection runs, and every design list agrees', () => {
    // The collection registers every kind, in the designer's order, and nothing else.
    expect(indexKindTypes()).toEqual(faceTypes);
    for (const kind of INDEX_KINDS) {
      // The engine the collection runs is the kind's own object: one config schema, one type.
      expect(findIndexKind(kind.type), kind.type).toBe(kind);
    }
    expect([...DESIGN_INDEX_TYPES]).toEqual(faceTypes);
    expect(designIndexSchema.options.map((o) => o.shape.type.value)).toEqual(faceTypes);
    expect(designIndexSchema.safeParse({ name: 'a', type: 'nope' }).error?.issues[0]?.message).toBe(
      `type must be one of ${faceTypes.join(', ')}`,
    );
  });

  it.each(INDEX_KINDS.map((face) => [face.type, face] as const))(
    'the %s face is complete',
    (type, face) => {
      expect(face.description.trim()).not.toBe('');
      const { schema, fields } = face.design;
      const shape: Record<string, z.ZodType> = schema.shape;
      // `{name, type}` alone is a complete index: every setting has a default.
      const index = schema.parse({ name: 'a', type }) as Record<string, unknown>;
      expect(designIndexSchema.parse({ name: 'a', type })).toEqual(index);
      // Strict: a misspelt setting is an error, not silently dropped.
      expect(schema.safeParse({ name: 'a', type, notASetting: 1 }).success).toBe(false);

      // The form shows every setting once, and nothing that is not one.
      const settings = Object.keys(shape).filter((k) => k !== 'name' && k !== 'type');
      expect(fields.map((f) => f.key).sort()).toEqual(settings.sort());
      for (const field of fields) {
        const value = (v: unknown) => schema.safeParse({ ...index, [field.key]: v }).success;
        switch (field.kind) {
          case 'number':
            expect(field.bounds, field.key).toEqual(numberBounds(shape[field.key] ?? z.never()));
            expect(value(field.bounds.min) && value(field.bounds.max), field.key).toBe(true);
            break;
          case 'select':
            expect(field.options.length, field.key).toBeGreaterThan(0);
            for (const option of field.options) expect(value(option), field.key).toBe(true);
            break;
          case 'bool':
            expect(value(true) && value(false), field.key).toBe(true);
            break;
          case 'index':
            expect(faceTypes, field.key).toEqual(expect.arrayContaining([...field.types]));
            break;
          case 'embedder':
            expect(value(index[field.key]), field.key).toBe(true);
            break;
        }
      }

      // The design index becomes a config the kind's engine accepts.
      const config = collectionConfig(index as DesignIndex, { dim: 8 });
      expect(face.configSchema.parse(config)).toMatchObject({ type });
    },
  );

  it('every kind builds, stores and answers inside one design (the designed engine)', async () => {
    let indexes: DesignIndex[] = [];
    for (const type of DESIGN_INDEX_TYPES) indexes = [...indexes, newDesignIndex(type, indexes)];
    const design = CollectionDesignSchema.parse({ name: 'every kind', indexes });
    const collection = await DesignedCollection.open(design, {
      dir: temp.make(),
      sample: SAMPLE,
      logger: { warn: () => undefined },
    });
    try {
      await collection.insertTurns(SAMPLE.sessions.flatMap((s) => s.turns));
      const result = await collection.retrieve('Who adopted a puppy?', 3, { perIndex: true });
      expect(result.perIndex.map((p) => p.type)).toEqual(faceTypes);
      // Each kind's query is one its engine answers: every index returns stored turns.
      for (const p of result.perIndex) expect(p.hits.length, p.index).toBeGreaterThan(0);
      expect(result.fused.length).toBe(3);
    } finally {
      collection.close();
    }
  });
});

function turn(sessionIndex: number, turnIndex: number, speaker: string, text: string): Turn {
  const diaId = `D${sessionIndex}:${turnIndex + 1}`;
  return { diaId, speaker, text, rawText: text, sessionIndex, turnIndex };
}

/** Four turns over two sessions; only D1:2 mentions a puppy. */
const SAMPLE: Sample = {
  sampleId: 'kinds',
  speakers: ['Ann', 'Bob'],
  sessions: [
    {
      index: 1,
      dateTimeText: null,
      dateTime: '2023-05-08T13:56:00',
      turns: [
        turn(1, 0, 'Ann', 'I finished a blue pottery bowl in my ceramics class.'),
        turn(1, 1, 'Bob', 'I adopted a puppy from the shelter.'),
      ],
    },
    {
      index: 2,
      dateTimeText: null,
      dateTime: '2023-06-01T09:00:00',
      turns: [
        turn(2, 0, 'Ann', 'My sister is getting married in Rome.'),
        turn(2, 1, 'Bob', 'The puppy chewed my old bicycle seat.'),
      ],
    },
  ],
  qa: [],
  aux: { eventSummary: null, observation: null, sessionSummary: null },
};
