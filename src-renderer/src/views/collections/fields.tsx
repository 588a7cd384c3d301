import { useId, useState } from 'react';
import type { NumberBounds } from './shape';

/** Messages of one field, announced with it (aria-describedby) and shown under it. */
function FieldErrors({ id, errors }: { id: string; errors: readonly string[] | undefined }) {
  if (!errors || errors.length === 0) return null;
  return (
    <span id={id} className="field-error">
      {errors.join('; ')}
    </span>
  );
}

/**
 * A number input that keeps what is being typed ("0.", "-", "") while the design holds the parsed
 * value (NaN for empty): validation then speaks about the design, the input about the keystrokes.
 */
export function NumberField({
  label,
  value,
  bounds,
  step,
  hint,
  errors,
  onChange,
}: {
  label: string;
  value: number;
  bounds: NumberBounds;
  step: number;
  hint?: string | undefined;
  errors?: readonly string[] | undefined;
  onChange: (value: number) => void;
}) {
  const id = useId();
  const [typed, setTyped] = useState<string | null>(null);
  const parse = (text: string) => (text.trim() === '' ? Number.NaN : Number(text));
  // Show the typed text only while it still means the design's value (a reload replaces it).
  const typedMatches = typed !== null && Object.is(parse(typed), value);
  const shown = typedMatches ? typed : Number.isNaN(value) ? '' : String(value);
  const invalid = errors !== undefined && errors.length > 0;
  return (
    <div className={`field${invalid ? ' field-invalid' : ''}`}>
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        type="number"
        inputMode="decimal"
        value={shown}
        min={Number.isFinite(bounds.min) ? bounds.min : undefined}
        max={Number.isFinite(bounds.max) ? bounds.max : undefined}
        step={step}
        aria-invalid={invalid || undefined}
        aria-describedby={invalid ? `${id}-err` : undefined}
        title={hint}
        onChange={(event) => {
          const text = event.currentTarget.value;
          setTyped(text);
          onChange(parse(text));
        }}
      />
      {hint ? <span className="field-hint">{hint}</span> : null}
      <FieldErrors id={`${id}-err`} errors={errors} />
    </div>
  );
}

export function SelectField({
  label,
  value,
  options,
  hint,
  errors,
  onChange,
}: {
  label: string;
  value: string;
  options: ReadonlyArray<string | { value: string; label: string }>;
  hint?: string | undefined;
  errors?: readonly string[] | undefined;
  onChange: (value: string) => void;
}) {
  const id = useId();
  const invalid = errors !== undefined && errors.length > 0;
  const normalised = options.map((o) => (typeof o === 'string' ? { value: o, label: o } : o));
  // A value the options lack (a removed index) stays visible, so the error has something to name.
  const all = normalised.some((o) => o.value === value)
    ? normalised
    : [{ value, label: value === '' ? '(none)' : `${value} (missing)` }, ...normalised];
  return (
    <div className={`field${invalid ? ' field-invalid' : ''}`}>
      <label htmlFor={id}>{label}</label>
      <select
        id={id}
        value={value}
        aria-invalid={invalid || undefined}
        aria-describedby={invalid ? `${id}-err` : undefined}
        onChange={(event) => onChange(event.currentTarget.value)}
      >
        {all.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
      {hint ? <span className="field-hint">{hint}</span> : null}
      <FieldErrors id={`${id}-err`} errors={errors} />
    </div>
  );
}

export function BoolField({
  label,
  value,
  onChange,
}: {
  label: string;
  value: boolean;
  onChange: (value: boolean) => void;
}) {
  return (
    <div className="field field-bool">
      <label>
        <input
          type="checkbox"
          checked={value}
          onChange={(event) => onChange(event.currentTarget.checked)}
        />{' '}
        {label}
      </label>
    </div>
  );
}
