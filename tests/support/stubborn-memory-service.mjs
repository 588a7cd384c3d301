// A memory service (stdio, docs/memory-protocol.md) that will not go away by itself: it ignores
// the end of its stdin and SIGINT/SIGTERM/SIGHUP, and it starts a helper process of its own. Only
// SIGKILL to its process group ends both. Plain Node (no tsx) so it starts fast.
//
// argv: <marker> [open-fails] [retrieve-fails] [<method>-hangs: hello, open, insert, retrieve, close]
// The marker is in this process's argv and its helper's, so a test finds both in /proc.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

const [marker = 'stubborn-memory-service', ...faults] = process.argv.slice(2);

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => undefined);
setInterval(() => undefined, 60_000);
spawn(process.execPath, ['-e', 'setInterval(() => undefined, 60_000)', marker], {
  stdio: 'ignore',
});

const reply = (id, body) => process.stdout.write(`${JSON.stringify({ id, ...body })}\n`);
const hello = {
  protocol: 'memory-workbench/1',
  name: 'stubborn',
  version: '0.0.1',
  capabilities: { retrieve: true, answer: false, reset: false, snapshot: false },
};

createInterface({ input: process.stdin }).on('line', (line) => {
  const { id, method } = JSON.parse(line);
  if (faults.includes(`${method}-hangs`)) return;
  if (method === 'hello') reply(id, { result: hello });
  else if (method === 'open') {
    if (faults.includes('open-fails')) {
      reply(id, { error: { code: 'SERVICE_ERROR', message: 'cannot open' } });
    } else reply(id, { result: { session: 's' } });
  } else if (method === 'insert') reply(id, { result: {} });
  else if (method === 'retrieve') {
    if (faults.includes('retrieve-fails')) {
      reply(id, { error: { code: 'SERVICE_ERROR', message: 'retrieval is down' } });
    } else reply(id, { result: { items: [] } });
  } else if (method === 'close') reply(id, { result: {} });
  else reply(id, { error: { code: 'UNSUPPORTED', message: method } });
});
