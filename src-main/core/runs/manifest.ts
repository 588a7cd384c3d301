import { randomBytes } from 'node:crypto';
import { hashedConfig, type ExperimentConfig } from '../../../src-shared/experiment';
import { canonicalJson, sha256Hex } from '../canonical-hash';

export { canonicalJson, sha256Hex };

/** DESIGN §6: what every run records about how it was made. */
export type { RunManifest } from '../../../src-shared/runs';

const SECRET_KEY = /(api[-_]?key|token|secret|password|authori[sz]ation|cookie)/i;
/**
 * `apiKeyEnv`-style fields hold the *name* of an environment variable, not a secret; a run must
 * keep it, or resuming the run could not find its key again. Token counts are not secrets either,
 * nor is any number or boolean (`tokensPerMinute`): a redacted one would no longer parse.
 */
const NOT_SECRET = /(Env|Tokens)$/;
const isSecretValue = (v: unknown): boolean =>
  v !== null && v !== undefined && typeof v !== 'number' && typeof v !== 'boolean';

/** Deep copy with secret-looking keys redacted (API keys come from the environment, never from runs). */
export function redactSecrets<T>(value: T): T {
  if (Array.isArray(value)) return value.map((v) => redactSecrets(v)) as T;
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      out[k] =
        SECRET_KEY.test(k) && !NOT_SECRET.test(k) && isSecretValue(v)
          ? '[redacted]'
          : redactSecrets(v);
    }
    return out as T;
  }
  return value;
}

/** Over the config's stored field names (`hashedConfig`): a renamed field changes no hash. */
export function configHash(config: ExperimentConfig): string {
  return sha256Hex(canonicalJson(hashedConfig(config)));
}

/**
 * Run ids sort by creation time (UTC, to the millisecond) and carry 6 random hex digits, so two
 * runs started in the same millisecond (parallel tests) still differ: `20250101-120000-123-ab12cd`.
 */
export function newRunId(
  now: number = Date.now(),
  random: () => string = () => randomBytes(3).toString('hex'),
): string {
  const iso = new Date(now).toISOString(); // 2025-01-01T12:00:00.123Z
  const stamp = `${iso.slice(0, 10).replaceAll('-', '')}-${iso.slice(11, 19).replaceAll(':', '')}-${iso.slice(20, 23)}`;
  return `${stamp}-${random()}`;
}
