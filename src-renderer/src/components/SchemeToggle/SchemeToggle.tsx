import { schemeOf, schemeOptions, type BenchmarkProfile, type SchemeId } from '@shared/benchmarks';
import { Segmented } from '../Segmented/Segmented';

/**
 * The "Category names" choice: the naming schemes the shown data's benchmark declares (LoCoMo's
 * official and Mem0 names). A benchmark with a single scheme (LongMemEval) has nothing to choose,
 * so the toggle is left out rather than offering another benchmark's names.
 */
export function SchemeToggle({
  profile,
  value,
  onChange,
  small = false,
}: {
  profile: BenchmarkProfile;
  value: SchemeId;
  onChange: (scheme: SchemeId) => void;
  small?: boolean;
}) {
  const options = schemeOptions(profile);
  if (options.length < 2) return null;
  return (
    <Segmented
      label="Category names"
      options={options}
      value={schemeOf(profile, value)}
      onChange={onChange}
      small={small}
    />
  );
}
