import type { ReactNode } from 'react';
import { categoryLabel, type BenchmarkProfile, type SchemeId } from '@shared/benchmarks';
import styles from './Badge.module.css';

export type BadgeTone = 'neutral' | 'warn' | 'danger' | 'ok' | 'accent';

/** A short label in a pill: a status, a count, a kind. */
export function Badge({
  tone = 'neutral',
  title,
  children,
}: {
  tone?: BadgeTone;
  title?: string;
  children: ReactNode;
}) {
  return (
    <span className={`${styles.badge} ${styles[tone] ?? ''}`} title={title}>
      {children}
    </span>
  );
}

/**
 * A question category: its stored number (the colour) and its name in the chosen scheme, as the
 * dataset's benchmark profile names it.
 */
export function CategoryBadge({
  id,
  scheme,
  profile,
}: {
  id: number;
  scheme: SchemeId;
  profile: BenchmarkProfile;
}) {
  return (
    <span className={`${styles.badge} ${styles[`cat${id}`] ?? ''}`}>
      {id} {categoryLabel(profile, id, scheme)}
    </span>
  );
}
