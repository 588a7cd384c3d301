/**
 * What to check when a call to an OpenAI-compatible endpoint fails: the error (as retry.ts and the
 * LLM client word it) to one kind and a sentence naming the thing to fix. Used by the Models
 * view's connection test and a run's preflight (pipeline/preflight.ts).
 */

export type EndpointProblem =
  | 'host-unreachable'
  | 'port-refused'
  | 'timeout'
  | 'unauthorized'
  | 'model-unknown'
  | 'key-missing'
  | 'rate-limited'
  | 'server-error'
  | 'other';

export interface EndpointHint {
  problem: EndpointProblem;
  /** One sentence: what to check, naming the host, port or model. */
  hint: string;
}

export interface EndpointTarget {
  baseUrl: string;
  model: string;
  /** The key variable the endpoint reads, if any. */
  apiKeyEnv?: string | undefined;
}

const HOST_UNREACHABLE = /\b(ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|EHOSTDOWN)\b/;
const PORT_REFUSED = /\bECONNREFUSED\b/;
const TIMED_OUT = /\btimed out\b|\bETIMEDOUT\b|\bUND_ERR_CONNECT_TIMEOUT\b/;
const HTTP_STATUS = /-> HTTP (\d{3})\b/;
const MODEL_WORDS =
  /model[_ ]?not[_ ]?found|does not exist|unknown model|no such model|model .*not (found|available)|invalid model/i;

function hostOf(baseUrl: string): { host: string; port: string } {
  try {
    const url = new URL(baseUrl);
    return { host: url.hostname, port: url.port || (url.protocol === 'https:' ? '443' : '80') };
  } catch {
    return { host: baseUrl, port: '?' };
  }
}

/** The hint for an error `message` (and its stable `code`, when known) from a call to `target`. */
export function endpointHint(
  error: { code?: string | undefined; message: string },
  target: EndpointTarget,
): EndpointHint {
  const { host, port } = hostOf(target.baseUrl);
  const message = error.message;
  const status = Number(HTTP_STATUS.exec(message)?.[1] ?? NaN);
  if (/\(apiKeyEnv\) is not set|is not set/.test(message) && target.apiKeyEnv) {
    return {
      problem: 'key-missing',
      hint: `Set ${target.apiKeyEnv} (in the server's environment in browser mode, or with Set key in the app), or leave the key variable empty for a local server.`,
    };
  }
  if (PORT_REFUSED.test(message)) {
    return {
      problem: 'port-refused',
      hint: `Nothing accepts connections on ${host} port ${port}: is the server running, and on that port?`,
    };
  }
  if (HOST_UNREACHABLE.test(message)) {
    return {
      problem: 'host-unreachable',
      hint: `The host ${host} cannot be reached: check its name in the base URL and the network (or VPN, proxy).`,
    };
  }
  if (error.code === 'TIMEOUT' || TIMED_OUT.test(message)) {
    return {
      problem: 'timeout',
      hint: `${host}:${port} did not answer in time: check that the server is up and not overloaded, and that a firewall does not drop the connection.`,
    };
  }
  if (status === 401 || status === 403) {
    return {
      problem: 'unauthorized',
      hint: target.apiKeyEnv
        ? `The server refused the key (HTTP ${status}): check the value of ${target.apiKeyEnv} and that it is valid for this server.`
        : `The server wants a key (HTTP ${status}): name the environment variable that holds it.`,
    };
  }
  if ((status === 404 || status === 400) && MODEL_WORDS.test(message)) {
    return {
      problem: 'model-unknown',
      hint: `The server does not know the model "${target.model}": check its name (the server's /models list).`,
    };
  }
  if (status === 404) {
    return {
      problem: 'model-unknown',
      hint: `HTTP 404: check the base URL (it usually ends in /v1) and the model name "${target.model}".`,
    };
  }
  if (status === 429) {
    return {
      problem: 'rate-limited',
      hint: `${host} is rate limiting or out of quota (HTTP 429): wait, or lower --concurrency / requestsPerMinute.`,
    };
  }
  if (status >= 500) {
    return {
      problem: 'server-error',
      hint: `${host} failed on its side (HTTP ${status}): check its logs, or try again later.`,
    };
  }
  return { problem: 'other', hint: 'Check the base URL, the model name and the key.' };
}
