import { useEffect, useImperativeHandle, useRef, type Ref } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import { formatSessionDate, splitTurnText, type TurnRow } from './shape';

export interface TurnListHandle {
  scrollToRow: (index: number, align?: 'start' | 'center') => void;
}

/** Turns vary from one line to a paragraph with a caption; estimates only seed the measuring. */
const estimateRow = (row: TurnRow | undefined) => (row?.kind === 'session' ? 44 : 64);

/**
 * The turns of one sample as one virtualised list (a LoCoMo sample has up to ~700 turns, and
 * rendering them all makes scrolling and highlighting sluggish). Rows are measured after render
 * because their height depends on the text.
 */
export function TurnList({
  rows,
  highlighted,
  scrollTarget,
  ref,
}: {
  rows: TurnRow[];
  highlighted: ReadonlySet<string>;
  /** The row to keep in view: the selected question's first evidence turn. */
  scrollTarget: number | null;
  ref?: Ref<TurnListHandle>;
}) {
  const scrollRef = useRef<HTMLDivElement>(null);
  // eslint-disable-next-line react-hooks/incompatible-library -- the virtualiser is mutable by design; this component is not memoised by the compiler.
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: (index) => estimateRow(rows[index]),
    getItemKey: (index) => rows[index]?.key ?? index,
    overscan: 8,
  });

  useImperativeHandle(
    ref,
    () => ({
      scrollToRow: (index, align = 'center') => virtualizer.scrollToIndex(index, { align }),
    }),
    [virtualizer],
  );

  // Follows the selection wherever it came from (a reload, a link in the problems table, the
  // back button); a click on the already-selected question scrolls through the handle instead.
  useEffect(() => {
    if (scrollTarget !== null) virtualizer.scrollToIndex(scrollTarget, { align: 'center' });
  }, [scrollTarget, virtualizer]);

  const items = virtualizer.getVirtualItems();
  return (
    <div ref={scrollRef} className="turns-scroll" tabIndex={0}>
      <div
        role="list"
        aria-label="Turns"
        className="turns-canvas"
        style={{ height: virtualizer.getTotalSize() }}
      >
        {items.map((item) => {
          const row = rows[item.index];
          if (row === undefined) return null;
          return (
            <div
              key={item.key}
              role="listitem"
              aria-setsize={rows.length}
              aria-posinset={item.index + 1}
              data-index={item.index}
              ref={virtualizer.measureElement}
              className="turn-row-slot"
              style={{ transform: `translateY(${item.start}px)` }}
            >
              {row.kind === 'session' ? (
                <SessionHeader row={row} />
              ) : (
                <TurnItem row={row} highlighted={highlighted.has(row.turn.diaId)} />
              )}
            </div>
          );
        })}
      </div>
    </div>
  );
}

function SessionHeader({ row }: { row: Extract<TurnRow, { kind: 'session' }> }) {
  const { session } = row;
  return (
    <div className="session-header" data-session={session.index}>
      <strong>Session {session.index}</strong>
      <span className="muted">{formatSessionDate(session)}</span>
      <span className="muted">{session.turns.length} turns</span>
    </div>
  );
}

function TurnItem({
  row,
  highlighted,
}: {
  row: Extract<TurnRow, { kind: 'turn' }>;
  highlighted: boolean;
}) {
  const { turn } = row;
  const { caption, body } = splitTurnText(turn);
  return (
    <div
      className={`turn${highlighted ? ' turn-evidence' : ''}`}
      data-dia-id={turn.diaId}
      data-evidence={highlighted ? 'true' : undefined}
    >
      <div className="turn-meta">
        <code className="dia-id">{turn.diaId}</code>
        <span className="speaker">{turn.speaker}</span>
        {highlighted ? <span className="badge badge-accent">evidence</span> : null}
      </div>
      <p className="turn-text">
        {caption ? <span className="image-caption">{caption}</span> : null}
        {caption && body ? ' ' : null}
        {body}
      </p>
    </div>
  );
}
