import type { Sample, Turn } from '@shared/dataset/types';
import { HUMAN_LABELS, type HumanLabel, type LabelItem } from '@shared/labels';
import { turnsById } from './shape';

/**
 * The labelling mode's keys and what it shows beside an answer. Each label's key is its first
 * letter (c, w, u, s), so the legend the view shows is read from the same list the handler uses.
 */

export const LABEL_KEYS: ReadonlyArray<{ key: string; label: HumanLabel }> = HUMAN_LABELS.map(
  (label) => ({ key: label.charAt(0), label }),
);

/** Back one answer (to see or change a label): `b`, or the left arrow. */
export const BACK_KEYS = ['b', 'ArrowLeft'] as const;

export type LabelKeyAction = { kind: 'label'; label: HumanLabel } | { kind: 'back' } | null;

/** What a key press does in the labelling mode; null for every other key (and with modifiers). */
export function labelKeyAction(event: {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
}): LabelKeyAction {
  if (event.ctrlKey || event.metaKey || event.altKey) return null;
  if ((BACK_KEYS as readonly string[]).includes(event.key)) return { kind: 'back' };
  const hit = LABEL_KEYS.find((k) => k.key === event.key.toLowerCase());
  return hit ? { kind: 'label', label: hit.label } : null;
}

/** The evidence turns of an item's question, in the dataset's order; null without the sample. */
export function evidenceTurns(item: LabelItem, sample: Sample | null): Turn[] | null {
  if (sample === null) return null;
  const qa = sample.qa.find((q) => q.index === item.questionIndex);
  if (!qa) return [];
  const turns = turnsById(sample);
  return qa.evidence.flatMap((id) => {
    const turn = turns.get(id);
    return turn ? [turn] : [];
  });
}

/** Where the labeller's name is kept between visits: asked once per browser profile. */
export const LABELLER_STORAGE_KEY = 'memory-workbench.labeller';
