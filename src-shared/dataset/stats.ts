import type { CategoryId } from '../benchmarks/types';
import type { EvidenceProblemKind } from './types';

/** Counts per category, keyed by the stored number (names depend on the chosen scheme). */
export type CategoryCounts = Record<CategoryId, number>;

export interface SampleStats {
  sampleId: string;
  sessions: number;
  turns: number;
  /** Turns carrying an image (URL or caption). */
  imageTurns: number;
  qa: number;
  packets: number;
  /** Questions whose normalised evidence resolves to at least one turn. */
  questionsWithEvidence: number;
  /** Questions taking part in the test plan (differs from the above with includeNoEvidence). */
  plannedQuestions: number;
  testThreshold: number;
  plannedTests: number;
  byCategory: CategoryCounts;
  sessionTurnCounts: Array<{ session: number; turns: number }>;
  evidenceRepaired: number;
  evidenceUnresolved: number;
  /** The sample's `group` (BEAM: its size), when the dataset groups its samples. */
  group?: string;
}

/** The totals of one group of samples (`Sample.group`: BEAM's sizes). */
export interface GroupStats {
  group: string;
  samples: number;
  turns: number;
  qa: number;
  byCategory: CategoryCounts;
}

export interface EvidenceProblemDetail {
  sampleId: string;
  qaIndex: number;
  raw: string;
  problem: EvidenceProblemKind;
  part?: string;
  repairedTo?: string;
}

export interface DatasetStats {
  totals: {
    samples: number;
    sessions: number;
    turns: number;
    imageTurns: number;
    qa: number;
    packets: number;
    questionsWithEvidence: number;
    plannedTests: number;
    byCategory: CategoryCounts;
    /** Per group, in the order the groups first appear; absent when no sample has a group. */
    byGroup?: GroupStats[];
  };
  samples: SampleStats[];
  evidence: {
    /** Ids changed into ones that resolve (split, zero-padded, misplaced colon). */
    repaired: number;
    /** Entries or parts that resolve to no turn. */
    unresolved: number;
    duplicates: number;
    /** Questions left with no usable evidence. */
    questionsWithoutEvidence: number;
    details: EvidenceProblemDetail[];
  };
}
