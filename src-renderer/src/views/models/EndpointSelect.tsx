import { JUDGE_PROTOCOLS, type JudgeProtocolName } from '@shared/experiment';
import type { ModelEndpoint } from '@shared/models';
import { endpointLabel } from './shape';

/** The judge protocols as offered in a select (Experiments' run form, Runs' judge rescore). */
export const JUDGE_PROTOCOL_LABELS: Record<JudgeProtocolName, string> = {
  mem0: 'Mem0 (paper, byte-exact)',
  strict: 'Strict (same fact)',
  'workbench-v1': 'Workbench v1',
  longmemeval: 'LongMemEval (paper, byte-exact, per question type)',
  'beam-rubric': 'BEAM rubric (paper, byte-exact, per rubric item)',
  'beam-rubric-corrected': 'BEAM rubric, corrected (question filled in, partial credit)',
};

/**
 * A saved endpoint (Models view) or the offline choice `none`. Full width once endpoints are
 * listed: "LLM: name (model)" does not fit half a column.
 */
export function EndpointSelect({
  label,
  wide,
  endpoints,
  chosen,
  none,
  onChange,
}: {
  label: string;
  wide: boolean;
  endpoints: readonly ModelEndpoint[];
  chosen: ModelEndpoint | null;
  none: { value: string; label: string };
  onChange: (id: string) => void;
}) {
  return (
    <label className={wide ? 'field field-wide' : 'field'}>
      <span className="field-label">{label}</span>
      <select
        value={chosen ? chosen.id : none.value}
        onChange={(event) => onChange(event.currentTarget.value)}
      >
        <option value={none.value}>{none.label}</option>
        {endpoints.map((e) => (
          <option key={e.id} value={e.id}>
            {endpointLabel(e)}
          </option>
        ))}
      </select>
    </label>
  );
}

export function JudgeProtocolSelect({
  value,
  onChange,
}: {
  value: JudgeProtocolName;
  onChange: (protocol: JudgeProtocolName) => void;
}) {
  return (
    <label className="field">
      <span className="field-label">Judge protocol</span>
      <select
        value={value}
        onChange={(event) => onChange(event.currentTarget.value as JudgeProtocolName)}
      >
        {JUDGE_PROTOCOLS.map((name) => (
          <option key={name} value={name}>
            {JUDGE_PROTOCOL_LABELS[name]}
          </option>
        ))}
      </select>
    </label>
  );
}
