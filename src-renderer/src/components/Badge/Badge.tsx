import type { ReactNode } from 'react';
import { categoryName, type CategoryId, type CategoryScheme } from '@shared/dataset/categories';
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

/** A question category: its stored number (the colour) and its name in the chosen scheme. */
export function CategoryBadge({ id, scheme }: { id: CategoryId; scheme: CategoryScheme }) {
  return (
    <span className={`${styles.badge} ${styles[`cat${id}`] ?? ''}`}>
      {id} {categoryName(id, scheme)}
    </span>
  );
}
