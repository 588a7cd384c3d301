import { useEffect, useRef, useState } from 'react';
import type { BenchmarkProfile, SchemeId } from '@shared/benchmarks';
import { toErrorPayload, type ErrorPayload } from '@shared/errors';
import type { HumanLabel, LabelItem, LabellingSession } from '@shared/labels';
import { CategoryBadge } from '../../components/Badge/Badge';
import { ErrorView } from '../../components/ErrorView';
import { useRunSample } from './hooks';
import { BACK_KEYS, LABEL_KEYS, evidenceTurns, labelKeyAction } from './labelling';

/**
 * The labelling mode: one answer at a time (question, gold, prediction, evidence turns; the
 * judges' verdicts are not shown, so they cannot sway the label), labelled by key. Each label is
 * saved as it is given, in order (a queue, so fast typing loses none); the view moves on at once.
 */
export function LabellingCard({
  session,
  labeller,
  datasetSha256,
  profile,
  scheme,
  onSave,
  onStop,
}: {
  session: LabellingSession;
  labeller: string;
  datasetSha256: string | null;
  profile: BenchmarkProfile;
  scheme: SchemeId;
  onSave: (item: LabelItem, label: HumanLabel) => Promise<unknown>;
  onStop: () => void;
}) {
  const total = session.items.length;
  const [position, setPosition] = useState(Math.min(session.next, Math.max(0, total - 1)));
  const [labels, setLabels] = useState(session.labels);
  const [pending, setPending] = useState(0);
  const [error, setError] = useState<ErrorPayload | null>(null);
  const queue = useRef<Promise<unknown>>(Promise.resolve());
  const card = useRef<HTMLElement>(null);
  const item = session.items[position];
  const done = labels.every((l) => l !== null);

  useEffect(() => {
    card.current?.scrollIntoView({ block: 'nearest' });
    card.current?.focus();
  }, []);

  // The handler reads the position from a ref: two keys pressed before a render label two
  // answers, not one twice.
  const at = useRef(position);
  const latest = useRef({ items: session.items, onSave, onStop });
  useEffect(() => {
    latest.current = { items: session.items, onSave, onStop };
  });
  useEffect(() => {
    const move = (p: number) => {
      at.current = p;
      setPosition(p);
    };
    const onKey = (event: KeyboardEvent) => {
      const target = event.target as HTMLElement | null;
      if (target?.closest('input, textarea, select')) return;
      const { items, onSave: save, onStop: stop } = latest.current;
      if (event.key === 'Escape') {
        event.preventDefault();
        stop();
        return;
      }
      const action = labelKeyAction(event);
      const shown = items[at.current];
      if (action === null || shown === undefined) return;
      event.preventDefault();
      if (action.kind === 'back') {
        move(Math.max(0, at.current - 1));
        return;
      }
      const index = at.current;
      setLabels((ls) => ls.map((l, i) => (i === index ? action.label : l)));
      move(Math.min(items.length - 1, index + 1));
      setPending((n) => n + 1);
      queue.current = queue.current
        .then(() => save(shown, action.label))
        .catch((e: unknown) => setError(toErrorPayload(e)))
        .finally(() => setPending((n) => n - 1));
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  const source = useRunSample(datasetSha256, item?.sampleId ?? null);
  const evidence = item ? evidenceTurns(item, source.sample) : null;

  return (
    <article
      ref={card}
      tabIndex={-1}
      className="labelling-card"
      aria-label="Labelling"
      aria-describedby="labelling-keys"
    >
      <header className="labelling-head">
        <strong aria-label="Progress">
          {position + 1} / {total}
        </strong>{' '}
        <span className="muted">
          labelling as {labeller} · {labels.filter((l) => l !== null).length} labelled
          {done ? ' · all labelled' : ''}
        </span>
        <span role="status" className="muted labelling-saved">
          {pending > 0 ? ' · saving…' : ' · all labels saved'}
        </span>
      </header>
      {error ? <ErrorView error={error} /> : null}
      {item ? (
        <>
          <p>
            <CategoryBadge id={item.category} scheme={scheme} profile={profile} />{' '}
            <span className="muted">
              <code>{item.sampleId}</code> · qa[{item.questionIndex}]
            </span>
          </p>
          <h3 className="labelling-question">{item.question}</h3>
          <dl className="retrieved-facts">
            <dt>Gold</dt>
            <dd aria-label="Gold answer">
              {item.gold ?? <span className="muted">(no gold answer)</span>}
            </dd>
            <dt>Prediction</dt>
            <dd aria-label="Prediction">{item.prediction}</dd>
            <dt>Evidence</dt>
            <dd aria-label="Evidence">
              {evidence === null ? (
                <span className="muted">
                  Open the run&apos;s dataset (Datasets view) to see its evidence turns.
                </span>
              ) : evidence.length === 0 ? (
                <span className="muted">none</span>
              ) : (
                <ul className="labelling-evidence">
                  {evidence.map((t) => (
                    <li key={t.diaId}>
                      <code>{t.diaId}</code> <strong>{t.speaker}:</strong> {t.text}
                    </li>
                  ))}
                </ul>
              )}
            </dd>
            <dt>Your label</dt>
            <dd aria-label="Your label">{labels[position] ?? '—'}</dd>
          </dl>
        </>
      ) : (
        <p className="muted">The sample is empty: the run has no judged final answer.</p>
      )}
      <p id="labelling-keys" className="labelling-keys">
        Keys:{' '}
        {LABEL_KEYS.map(({ key, label }) => (
          <span key={key}>
            <kbd>{key}</kbd> {label}
            {' · '}
          </span>
        ))}
        {BACK_KEYS.map((k) => (
          <kbd key={k}>{k === 'ArrowLeft' ? '←' : k}</kbd>
        ))}{' '}
        back · <kbd>Esc</kbd> leave. A label is saved as soon as it is given; coming back later
        resumes at the first answer without one.
      </p>
    </article>
  );
}
