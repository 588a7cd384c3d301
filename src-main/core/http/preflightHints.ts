/**
 * A hint for an endpoint's failure, read from the message the HTTP layer wrote (http/retry.ts:
 * `... failed: ECONNREFUSED ...`, `... -> HTTP 401: ...`, `... timed out after N ms`). The
 * endpoint's own error is always shown too; the hint only says what to check.
 */
export function endpointHint(
  message: string,
  endpoint: { baseUrl: string; model: string },
): string {
  const host = hostOf(endpoint.baseUrl);
  if (/\bECONNREFUSED\b/.test(message))
    return `nothing listens at ${host}: is the server running, on that port?`;
  if (/\b(ENOTFOUND|EAI_AGAIN)\b/.test(message))
    return `the host ${host} is unknown: check the base URL`;
  if (/\b(EHOSTUNREACH|ENETUNREACH|ECONNRESET|UND_ERR_CONNECT_TIMEOUT)\b/.test(message))
    return `${host} is unreachable: check the network, a proxy or a firewall`;
  if (/timed out after/.test(message))
    return `${host} did not answer in time: is it overloaded, or is the model still loading?`;
  const status = /-> HTTP (\d{3})\b/.exec(message)?.[1];
  if (status === '401' || status === '403')
    return 'the endpoint refused the credentials: check the API key variable (apiKeyEnv) and its value';
  if (status === '404') {
    return /model/i.test(message)
      ? `the endpoint does not know the model "${endpoint.model}": check its name (GET ${endpoint.baseUrl.replace(/\/+$/, '')}/models lists them)`
      : 'no such path: the base URL must include the version segment (e.g. .../v1)';
  }
  if (status === '400' && /model/i.test(message))
    return `the endpoint rejected the model "${endpoint.model}": check its name`;
  if (status === '429')
    return 'the endpoint is rate limiting or out of quota: wait, or lower --concurrency';
  if (status !== undefined && Number(status) >= 500)
    return 'the endpoint failed on its side: try again later';
  return 'check the base URL, the model and the API key';
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}
