import styles from './Segmented.module.css';

export interface SegmentedOption<T extends string> {
  value: T;
  label: string;
  /** Shown instead of the label where many options share a row; the label stays its name. */
  short?: string;
}

/** A small set of mutually exclusive choices (metric, naming scheme) as pressed buttons. */
export function Segmented<T extends string>({
  label,
  options,
  value,
  onChange,
  small = false,
}: {
  label: string;
  options: readonly SegmentedOption<T>[];
  value: T;
  onChange: (value: T) => void;
  small?: boolean;
}) {
  return (
    <div
      className={small ? `${styles.group} ${styles.small}` : styles.group}
      role="group"
      aria-label={label}
    >
      <span className={styles.label}>{label}</span>
      {options.map((o) => (
        <button
          key={o.value}
          type="button"
          aria-pressed={o.value === value}
          aria-label={o.short === undefined ? undefined : o.label}
          title={o.short === undefined ? undefined : o.label}
          onClick={() => onChange(o.value)}
        >
          {o.short ?? o.label}
        </button>
      ))}
    </div>
  );
}
