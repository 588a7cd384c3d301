import { WINK_EMBEDDER, embedderChoicesIn } from '../../src-shared/embedders';
import { WorkbenchError, type ErrorPath } from '../../src-shared/errors';
import type { ExperimentConfig } from '../../src-shared/experiment';
import type { KeySource } from '../../src-shared/models';

/**
 * Which environment variables may hold an API key, where keys come from, and where they may go.
 *
 * Threat model: every API input (HTTP in browser mode, IPC in the desktop app) may come from an
 * attacker who controls the renderer. Such inputs name the key variable (`apiKeyEnv`) and the
 * place the key is sent (`baseUrl`), so without limits they could send `Bearer $ANY_VARIABLE` to any
 * host. Hence:
 *
 * - A variable is read only when it is meant to hold a key: its name has the shape of an API key
 *   (`..._API_KEY`, `..._API_TOKEN`, or a provider's own bare token name such as `HF_TOKEN`) and is
 *   not a known non-LLM credential or one of this app's own variables (an allow-list shape: a bare
 *   `..._TOKEN` such as `VAULT_TOKEN` or `SLACK_BOT_TOKEN` is a general secret, not an API key), or
 *   the user declared it when starting the process (`--allow-key-env NAME`, or
 *   `MEMORY_WORKBENCH_ALLOW_KEY_ENV` for the desktop app). Explicit declarations win over the
 *   denylist (e.g. `GITHUB_TOKEN` for GitHub Models).
 * - A key is sent only over https, or over plain http to a loopback host (a local server or an
 *   SSH tunnel); a key over plain http to another host could be read on the wire.
 * - Keys are resolved once per use into an explicit name -> key map that is handed to the LLM
 *   clients (and to experiment workers in their start message). Nothing writes `process.env`.
 *
 * Non-goals: stopping a key being sent to an https host the attacker names. The user's own
 * endpoints are arbitrary https URLs; binding keys to hosts is future work.
 */

/** Names meant for keys: upper-case, ending in _API_KEY or _API_TOKEN. */
export const KEY_ENV_CONVENTION = /^[A-Z][A-Z0-9_]*_API_(KEY|TOKEN)$/;

/**
 * LLM providers' own key variables that do not follow the convention (Hugging Face's). A bare
 * `..._TOKEN` is otherwise refused: it is as often a vault, chat or CI credential as a key.
 */
export const PROVIDER_KEY_ENVS: readonly string[] = ['HF_TOKEN', 'HUGGING_FACE_HUB_TOKEN'];

/** The rule in words, for errors and help: what `KeyEnvPolicy` permits without a declaration. */
export const KEY_ENV_RULE = `a name ending in _API_KEY or _API_TOKEN (or ${PROVIDER_KEY_ENVS.join(', ')})`;

/**
 * Credentials that follow the convention but belong to other services (CI, package registries,
 * clouds), and this app's and its runtimes' own variables. Declared names bypass this list.
 */
const DENIED_KEY_ENV_PREFIXES = [
  'MEMORY_WORKBENCH_',
  'ELECTRON_',
  'NODE_',
  'NPM_',
  'AWS_',
  'GITHUB_',
  'GH_',
  'GITLAB_',
  'ACTIONS_',
  'CI_',
  'RUNNER_',
];

/** The desktop app reads declared key variables from here (comma- or space-separated). */
export const ALLOW_KEY_ENV_VARIABLE = 'MEMORY_WORKBENCH_ALLOW_KEY_ENV';

/** name -> key, for names that passed the policy. Never stored, logged or serialised to disk. */
export type ApiKeys = Readonly<Record<string, string>>;

export interface KeyEnvPolicyOptions {
  /** Names declared by the user at process start; allowed whatever they look like. */
  allow?: readonly string[];
  /** Ends "…, or <howToAllow(NAME)>" in errors: how the user of this process declares a name. */
  howToAllow?: (name: string) => string;
}

export class KeyEnvPolicy {
  readonly declared: ReadonlySet<string>;
  private readonly howToAllow: (name: string) => string;

  constructor(options: KeyEnvPolicyOptions = {}) {
    this.declared = new Set(options.allow ?? []);
    this.howToAllow = options.howToAllow ?? ((name) => `pass --allow-key-env ${name}`);
  }

  permits(name: string): boolean {
    if (this.declared.has(name)) return true;
    return (
      (KEY_ENV_CONVENTION.test(name) || PROVIDER_KEY_ENVS.includes(name)) &&
      !DENIED_KEY_ENV_PREFIXES.some((p) => name.startsWith(p))
    );
  }

  /** Throws INVALID_INPUT naming the variable and how to allow it. */
  check(name: string, where: string, path: ErrorPath): void {
    if (this.permits(name)) return;
    const why =
      KEY_ENV_CONVENTION.test(name) || PROVIDER_KEY_ENVS.includes(name)
        ? 'is reserved for another service'
        : 'is not a key variable';
    throw new WorkbenchError(
      'INVALID_INPUT',
      `${where}: apiKeyEnv ${JSON.stringify(name)} ${why}; use ${KEY_ENV_RULE}, or ${this.howToAllow(name)}`,
      { path },
    );
  }
}

/** Names declared in `MEMORY_WORKBENCH_ALLOW_KEY_ENV` (the desktop app has no command line). */
export function declaredKeyEnvs(value: string | undefined): string[] {
  return (value ?? '').split(/[\s,]+/).filter((name) => name !== '');
}

/** Where keys are kept besides the environment (the desktop app's keychain). */
export interface KeyLookup {
  get(name: string): string | undefined;
}

export interface ApiKeySourceOptions {
  policy?: KeyEnvPolicy;
  /** Default: `process.env` (read, never written). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Consulted before the environment: a key the user stored in the app wins over the shell's. */
  keychain?: KeyLookup;
}

/** Resolves allowed key variable names to keys: the one place keys are read. */
export class ApiKeySource {
  readonly policy: KeyEnvPolicy;
  private readonly env: Readonly<Record<string, string | undefined>>;
  private readonly keychain: KeyLookup | undefined;

  constructor(options: ApiKeySourceOptions = {}) {
    this.policy = options.policy ?? new KeyEnvPolicy();
    this.env = options.env ?? process.env;
    this.keychain = options.keychain;
  }

  /** Where an allowed name's key comes from; null when unset or not allowed (nothing is revealed). */
  sourceOf(name: string): KeySource | null {
    if (!this.policy.permits(name)) return null;
    if (this.keychain?.get(name)) return 'keychain';
    return Object.hasOwn(this.env, name) && this.env[name] ? 'environment' : null;
  }

  /** The key for `name`, or undefined when it is not set; throws when the name is not allowed. */
  get(name: string, where: string, path: ErrorPath): string | undefined {
    this.policy.check(name, where, path);
    const stored = this.keychain?.get(name);
    if (stored) return stored;
    return Object.hasOwn(this.env, name) ? this.env[name] || undefined : undefined;
  }

  /** A one-entry map for one name (none without a name); throws when the name is not allowed. */
  keysFor(name: string | undefined, where: string, path: ErrorPath): ApiKeys {
    if (name === undefined) return {};
    const key = this.get(name, where, path);
    return key === undefined ? {} : { [name]: key };
  }
}

/**
 * The keys an experiment needs (answerer, judge, memory LLM, the OpenAI embedders its memory
 * config names), checked before a run is created: a name that is not allowed or not set fails here
 * rather than turning every answer into [ERROR].
 */
export function experimentApiKeys(config: ExperimentConfig, source: ApiKeySource): ApiKeys {
  const named: NamedKey[] = [{ path: ['judge', 'apiKeyEnv'], env: config.judge?.apiKeyEnv }];
  if (config.answerer.kind === 'llm')
    named.push({ path: ['answerer', 'apiKeyEnv'], env: config.answerer.apiKeyEnv });
  if (config.memory.llm)
    named.push({ path: ['memory', 'llm', 'apiKeyEnv'], env: config.memory.llm.apiKeyEnv });
  // An external memory service's bearer token (memory.config.tokenEnv, preset "external").
  const tokenEnv = config.memory.config['tokenEnv'];
  if (typeof tokenEnv === 'string')
    named.push({ path: ['memory', 'config', 'tokenEnv'], env: tokenEnv });
  named.push(...embedderKeyNames(config.memory.config, ['memory', 'config']));
  return requiredKeys(named, source);
}

/**
 * The keys of the OpenAI embedders a collection design names (the Collections playground builds
 * designs outside any run); `path` locates the design in error messages.
 */
export function designApiKeys(
  design: Record<string, unknown>,
  source: ApiKeySource,
  path: readonly string[] = ['design'],
): ApiKeys {
  return requiredKeys(embedderKeyNames(design, path), source);
}

interface NamedKey {
  path: string[];
  env: string | undefined;
}

/** The `apiKeyEnv` of every OpenAI embedder in a preset config or design (see embedderChoicesIn). */
function embedderKeyNames(config: Record<string, unknown>, prefix: readonly string[]): NamedKey[] {
  const named: NamedKey[] = [];
  for (const { path, choice } of embedderChoicesIn(config)) {
    if (choice !== WINK_EMBEDDER) {
      named.push({ path: [...prefix, ...path.map(String), 'apiKeyEnv'], env: choice.apiKeyEnv });
    }
  }
  return named;
}

function requiredKeys(named: readonly NamedKey[], source: ApiKeySource): ApiKeys {
  const keys: Record<string, string> = {};
  for (const { path, env } of named) {
    if (env === undefined) continue;
    const where = path.slice(0, -1).join('.');
    const key = source.get(env, where, path);
    if (!key) {
      throw new WorkbenchError(
        'INVALID_INPUT',
        `${path.join('.')}: environment variable ${env} is not set (it should hold the API key)`,
        { path },
      );
    }
    keys[env] = key;
  }
  return keys;
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Refuses to send a key over plain http to a host other than loopback. A local server (Ollama,
 * vLLM) or an SSH tunnel to one is reachable on 127.0.0.1; anything else must use https.
 */
export function assertKeyTransport(baseUrl: string, keyName: string, where: string): void {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new WorkbenchError('INVALID_INPUT', `${where}: baseUrl ${baseUrl} is not a URL`, {
      path: ['baseUrl'],
    });
  }
  if (url.protocol === 'https:') return;
  if (url.protocol === 'http:' && isLoopbackHostname(url.hostname)) return;
  throw new WorkbenchError(
    'INVALID_INPUT',
    `${where}: refusing to send the key in ${keyName} over plain http to ${url.host}; use https, or reach the server through a tunnel on 127.0.0.1`,
    { path: ['baseUrl'], where: baseUrl },
  );
}

/** A URL's hostname that names this machine: localhost, 127.0.0.0/8 or [::1]. */
export function isLoopbackHostname(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname) || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}
