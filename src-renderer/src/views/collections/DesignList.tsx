import type { DesignBasePreset, DesignList as DesignListData } from '@shared/designs';
import { BASE_PRESETS, designSummary } from './shape';

/** Saved designs, newest state of the file, and the presets a new design can start from. */
export function DesignList({
  list,
  selected,
  onSelect,
  onNewFromPreset,
}: {
  list: DesignListData | undefined;
  selected: string | null;
  onSelect: (name: string) => void;
  onNewFromPreset: (preset: DesignBasePreset) => void;
}) {
  return (
    <nav className="panel design-list" aria-labelledby="designs-title">
      <h2 id="designs-title">Saved designs</h2>
      {list === undefined ? (
        <p className="muted">Loading…</p>
      ) : list.designs.length === 0 ? (
        <p className="muted">None yet. Start from a preset below, then save.</p>
      ) : (
        <ul>
          {list.designs.map(({ design, savedAt }) => (
            <li key={design.name}>
              <button
                type="button"
                aria-pressed={design.name === selected}
                onClick={() => onSelect(design.name)}
                title={`saved ${new Date(savedAt).toLocaleString()}`}
              >
                <strong>{design.name}</strong>
                <span className="muted">{designSummary(design)}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      {list?.problems.map((p, i) => (
        <p key={i} className="notice" role="note">
          {p.message}
        </p>
      ))}
      <h3>New from preset</h3>
      <div className="preset-buttons" role="group" aria-label="New from preset">
        {BASE_PRESETS.map((preset) => (
          <button key={preset} type="button" onClick={() => onNewFromPreset(preset)}>
            {preset}
          </button>
        ))}
      </div>
    </nav>
  );
}
