import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from '../main';

const committed = fileURLToPath(
  new URL('../../../docs/memory-protocol.schema.json', import.meta.url),
);

async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(args, { stdout: (t) => (out += t), stderr: (t) => (err += t) });
  return { code, out, err };
}

describe('memory-check', () => {
  it('docs/memory-protocol.schema.json is what the zod schemas generate (regenerate with --schema)', async () => {
    const { code, out } = await cli('memory-check', '--schema');
    expect(code).toBe(0);
    // Compared as data: the committed file is prettier-formatted.
    expect(JSON.parse(readFileSync(committed, 'utf8'))).toEqual(JSON.parse(out));
  });

  it('needs exactly one of a url and --command', async () => {
    expect((await cli('memory-check')).code).toBe(2);
    const both = await cli('memory-check', 'http://127.0.0.1:1', '--command', 'x');
    expect(both.code).toBe(2);
    expect(both.err).toContain('give a service url or --command "<cmd>" (one of them)');
  });

  it('an unreachable service fails the hello check and exits 1', async () => {
    // Port 1 on loopback: nothing listens there, the connection is refused at once.
    const { code, out } = await cli('memory-check', 'http://127.0.0.1:1');
    expect(code).toBe(1);
    expect(out).toMatch(/FAIL {2}hello .*\n.*cannot reach the service \(ECONNREFUSED\)/);
    expect(out).toContain('conformance: FAILED (1 of 1 checks failed)');
  });
});
