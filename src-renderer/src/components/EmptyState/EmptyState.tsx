import type { ReactNode } from 'react';
import styles from './EmptyState.module.css';

/** What a view shows before there is anything in it: what is missing, and how to get it. */
export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className={styles.empty}>
      <p>
        <strong>{title}</strong>
      </p>
      {children ? <div className={styles.hint}>{children}</div> : null}
    </div>
  );
}
