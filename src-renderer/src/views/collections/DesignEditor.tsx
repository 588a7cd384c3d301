import { useId, useRef, useState } from 'react';
import {
  DESIGN_INDEX_TYPES,
  issueText,
  type CollectionDesign,
  type DesignIndex,
  type DesignIssue,
} from '@shared/designs';
import { EmbedderChoiceSchema, WINK_EMBEDDER } from '@shared/embedders';
import { useApi } from '../../hooks/useApi';
import { embedderForOption, embedderOptionValue, embedderOptions } from '../models/shape';
import { BoolField, NumberField, SelectField } from './fields';
import {
  FUSION_METHODS,
  INDEX_FIELDS,
  INDEX_TYPE_HINTS,
  RETRIEVAL_FIELDS,
  RRF_K_FIELD,
  WEIGHT_BOUNDS,
  fieldKey,
  issuesByField,
  weightOf,
  type DesignAction,
  type FieldSpec,
} from './shape';

/**
 * The design editor: name, one card per index with its type's parameters, fusion and retrieval
 * knobs. Every message comes from the shared schema (the engine's own validation), shown beside
 * its field and listed above the Save button.
 */
export function DesignEditor({
  design,
  issues,
  dirty,
  savedExists,
  onChange,
  onSave,
  onDelete,
  status,
}: {
  design: CollectionDesign;
  issues: readonly DesignIssue[];
  /** Differs from the saved design of the same name (or none is saved). */
  dirty: boolean;
  savedExists: boolean;
  onChange: (action: DesignAction) => void;
  onSave: () => void;
  onDelete: () => void;
  status:
    | { kind: 'idle' | 'saving' }
    | { kind: 'saved' | 'deleted'; name: string }
    | { kind: 'error'; message: string };
}) {
  const byField = issuesByField(issues);
  const nameId = useId();
  const [confirming, setConfirming] = useState(false);
  const nameErrors = byField.get('name');
  return (
    <section className="panel design-editor" aria-labelledby="editor-title">
      <div className="panel-head">
        <h2 id="editor-title">Design</h2>
        {design.basePreset ? (
          <span className="muted">started from the {design.basePreset} preset</span>
        ) : null}
        {dirty ? <span className="badge badge-warn">unsaved changes</span> : null}
      </div>
      <div className={`field field-wide${nameErrors ? ' field-invalid' : ''}`}>
        <label htmlFor={nameId}>Design name</label>
        <input
          id={nameId}
          type="text"
          value={design.name}
          maxLength={80}
          aria-invalid={nameErrors ? true : undefined}
          onChange={(event) => onChange({ type: 'set-name', name: event.currentTarget.value })}
        />
        {nameErrors ? <span className="field-error">{nameErrors.join('; ')}</span> : null}
      </div>

      <h3>
        Indexes <span className="muted">({design.indexes.length})</span>
      </h3>
      {byField.get('indexes') ? (
        <p className="field-error">{byField.get('indexes')?.join('; ')}</p>
      ) : null}
      <div className="index-cards">
        {design.indexes.map((index, i) => (
          <IndexCard
            key={i}
            index={index}
            position={i}
            design={design}
            byField={byField}
            onChange={onChange}
          />
        ))}
        <AddIndexMenu onAdd={(indexType) => onChange({ type: 'add-index', indexType })} />
      </div>

      <div className="editor-columns">
        <fieldset className="editor-group">
          <legend>Fusion</legend>
          <SelectField
            label="Method"
            value={design.fusion.method}
            options={FUSION_METHODS}
            hint={
              design.fusion.method === 'rrf'
                ? 'Σ weight / (k + rank)'
                : design.fusion.method === 'weighted'
                  ? 'Σ weight · min-max normalised score'
                  : 'each turn once, its best weighted score'
            }
            errors={byField.get('fusion.method')}
            onChange={(value) => onChange({ type: 'set-fusion', key: 'method', value })}
          />
          {design.fusion.method === 'rrf' && RRF_K_FIELD.kind === 'number' ? (
            <NumberField
              label={RRF_K_FIELD.label}
              value={design.fusion.rrfK}
              bounds={RRF_K_FIELD.bounds}
              step={1}
              errors={byField.get('fusion.rrfK')}
              onChange={(value) => onChange({ type: 'set-fusion', key: 'rrfK', value })}
            />
          ) : null}
          <div className="weights" role="group" aria-label="Weights">
            {design.indexes.map((index, i) => (
              <NumberField
                key={i}
                label={`Weight ${index.name}`}
                value={weightOf(design, index.name)}
                bounds={WEIGHT_BOUNDS}
                step={0.1}
                errors={byField.get(fieldKey('fusion', 'weights', index.name))}
                onChange={(value) => onChange({ type: 'set-weight', name: index.name, value })}
              />
            ))}
          </div>
          {Object.keys(design.fusion.weights)
            .filter((name) => !design.indexes.some((i) => i.name === name))
            .map((name) => (
              <p key={name} className="field-error">
                {issueText({
                  path: ['fusion', 'weights', name],
                  message: 'names no index of this design',
                })}
              </p>
            ))}
        </fieldset>
        <fieldset className="editor-group">
          <legend>Retrieval</legend>
          {RETRIEVAL_FIELDS.map((field) => (
            <FieldInput
              key={field.key}
              field={field}
              value={design.retrieval[field.key as keyof CollectionDesign['retrieval']]}
              errors={byField.get(fieldKey('retrieval', field.key))}
              design={design}
              onChange={(value) =>
                onChange({
                  type: 'set-retrieval',
                  key: field.key as keyof CollectionDesign['retrieval'],
                  value,
                })
              }
            />
          ))}
        </fieldset>
      </div>

      {issues.length > 0 ? (
        <div className="validation" role="alert" aria-label="Design problems">
          <strong>
            {issues.length === 1 ? '1 problem' : `${issues.length} problems`} to fix before saving
          </strong>
          <ul>
            {issues.map((issue, i) => (
              <li key={i}>{issueText(issue)}</li>
            ))}
          </ul>
        </div>
      ) : null}

      <div className="editor-actions">
        <button
          type="button"
          className="primary"
          disabled={issues.length > 0 || status.kind === 'saving'}
          onClick={onSave}
        >
          {savedExists ? 'Save design' : 'Save as new design'}
        </button>
        {savedExists ? (
          confirming ? (
            <span className="confirm" role="alertdialog" aria-label="Confirm delete">
              Delete “{design.name}”?{' '}
              <button
                type="button"
                className="danger"
                onClick={() => {
                  setConfirming(false);
                  onDelete();
                }}
              >
                Delete
              </button>{' '}
              <button type="button" onClick={() => setConfirming(false)}>
                Cancel
              </button>
            </span>
          ) : (
            <button type="button" className="danger-outline" onClick={() => setConfirming(true)}>
              Delete design…
            </button>
          )
        ) : null}
        <span role="status" className="muted">
          {status.kind === 'saving'
            ? 'Saving…'
            : status.kind === 'saved'
              ? `Saved “${status.name}”.`
              : status.kind === 'deleted'
                ? `Deleted “${status.name}”.`
                : ''}
        </span>
        {status.kind === 'error' ? <span className="field-error">{status.message}</span> : null}
      </div>
    </section>
  );
}

function IndexCard({
  index,
  position,
  design,
  byField,
  onChange,
}: {
  index: DesignIndex;
  position: number;
  design: CollectionDesign;
  byField: Map<string, string[]>;
  onChange: (action: DesignAction) => void;
}) {
  const nameId = useId();
  const values = index as unknown as Record<string, unknown>;
  const nameErrors = byField.get(fieldKey('indexes', position, 'name'));
  const typeErrors = byField.get(fieldKey('indexes', position, 'type'));
  return (
    <section className="index-card" aria-label={`Index ${index.name}`} data-index-type={index.type}>
      <header className="index-card-head">
        <span className={`badge type-${index.type}`}>{index.type}</span>
        <div className={`field field-name${nameErrors ? ' field-invalid' : ''}`}>
          <label htmlFor={nameId} className="visually-hidden">
            Index name
          </label>
          <input
            id={nameId}
            type="text"
            value={index.name}
            aria-invalid={nameErrors ? true : undefined}
            onChange={(event) =>
              onChange({ type: 'rename-index', index: position, name: event.currentTarget.value })
            }
          />
        </div>
        <button
          type="button"
          className="icon-button"
          aria-label={`Remove index ${index.name}`}
          title="Remove index"
          onClick={() => onChange({ type: 'remove-index', index: position })}
        >
          ×
        </button>
      </header>
      <p className="muted index-hint">{INDEX_TYPE_HINTS[index.type]}</p>
      {nameErrors ? <p className="field-error">{nameErrors.join('; ')}</p> : null}
      {typeErrors ? <p className="field-error">{typeErrors.join('; ')}</p> : null}
      <div className="index-fields">
        {INDEX_FIELDS[index.type].map((field) => (
          <FieldInput
            key={field.key}
            field={field}
            value={values[field.key]}
            errors={byField.get(fieldKey('indexes', position, field.key))}
            design={design}
            onChange={(value) =>
              onChange({ type: 'set-index-field', index: position, key: field.key, value })
            }
          />
        ))}
      </div>
    </section>
  );
}

function FieldInput({
  field,
  value,
  errors,
  design,
  onChange,
}: {
  field: FieldSpec;
  value: unknown;
  errors: string[] | undefined;
  design: CollectionDesign;
  onChange: (value: unknown) => void;
}) {
  switch (field.kind) {
    case 'number':
      return (
        <NumberField
          label={field.label}
          value={typeof value === 'number' ? value : Number.NaN}
          bounds={field.bounds}
          step={field.step}
          hint={field.hint}
          errors={errors}
          onChange={onChange}
        />
      );
    case 'select':
      return (
        <SelectField
          label={field.label}
          value={String(value ?? '')}
          options={field.options}
          hint={field.hint}
          errors={errors}
          onChange={onChange}
        />
      );
    case 'bool':
      return <BoolField label={field.label} value={value === true} onChange={onChange} />;
    case 'embedder':
      return <EmbedderField field={field} value={value} errors={errors} onChange={onChange} />;
    case 'index':
      return (
        <SelectField
          label={field.label}
          value={String(value ?? '')}
          options={design.indexes
            .filter((i) => field.types.includes(i.type))
            .map((i) => ({ value: i.name, label: `${i.name} (${i.type})` }))}
          hint={field.hint}
          errors={errors}
          onChange={onChange}
        />
      );
  }
}

/** A vector index's embedder: wink (offline) or a saved endpoint, copied into the design. */
function EmbedderField({
  field,
  value,
  errors,
  onChange,
}: {
  field: FieldSpec;
  value: unknown;
  errors: string[] | undefined;
  onChange: (value: unknown) => void;
}) {
  const endpoints = useApi('models.list', {}).data ?? [];
  const parsed = EmbedderChoiceSchema.safeParse(value);
  const current = parsed.success ? parsed.data : WINK_EMBEDDER;
  return (
    <SelectField
      label={field.label}
      value={embedderOptionValue(endpoints, current)}
      options={embedderOptions(endpoints, current)}
      hint={field.hint}
      errors={errors}
      onChange={(option) => {
        const choice = embedderForOption(endpoints, option);
        if (choice !== null) onChange(choice);
      }}
    />
  );
}

/** "Add index" opens a small menu of index types (a disclosure, closed again after a choice). */
function AddIndexMenu({ onAdd }: { onAdd: (type: (typeof DESIGN_INDEX_TYPES)[number]) => void }) {
  const details = useRef<HTMLDetailsElement>(null);
  return (
    <details className="add-index" ref={details}>
      <summary>+ Add index</summary>
      <div role="menu" aria-label="Index type">
        {DESIGN_INDEX_TYPES.map((type) => (
          <button
            key={type}
            type="button"
            role="menuitem"
            onClick={() => {
              onAdd(type);
              if (details.current) details.current.open = false;
            }}
          >
            <strong>{type}</strong> <span className="muted">{INDEX_TYPE_HINTS[type]}</span>
          </button>
        ))}
      </div>
    </details>
  );
}
