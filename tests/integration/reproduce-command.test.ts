import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { packCommand } from '../../src-shared/reproduce';

/** The words a POSIX shell reads from a command line. */
function shellWords(command: string): string[] {
  return execFileSync('sh', ['-c', `set -- ${command}; printf '%s\\n' "$@"`], { encoding: 'utf8' })
    .split('\n')
    .slice(0, -1);
}

describe('packCommand', () => {
  const endpoint = {
    baseUrl: 'https://api.openai.com/v1',
    model: 'gpt-4o-mini',
    apiKeyEnv: 'OPENAI_API_KEY',
    prices: { inputPerMillion: 0.15, outputPerMillion: 0.6 },
  };

  it("runs the paper's models through the endpoint, with its key variable and prices", () => {
    expect(packCommand('mem0-table1', '/data/locomo10.json', endpoint)).toBe(
      'npm run -s cli -- reproduce mem0-table1 --data /data/locomo10.json --base-url https://api.openai.com/v1 --api-key-env OPENAI_API_KEY --prices 0.15,0.6',
    );
  });

  it("names the endpoint's model for answers and judge when asked (a local server's model)", () => {
    const local = { baseUrl: 'http://127.0.0.1:8000/v1', model: 'Qwen/Qwen2.5-7B-Instruct' };
    expect(packCommand('locomo-table2', '/d/l.json', local, true)).toBe(
      'npm run -s cli -- reproduce locomo-table2 --data /d/l.json --base-url http://127.0.0.1:8000/v1 --model Qwen/Qwen2.5-7B-Instruct --judge-model Qwen/Qwen2.5-7B-Instruct',
    );
    // Offline: no endpoint, no LLM flags.
    expect(packCommand('locomo-table3', '/d/l.json', null)).toBe(
      'npm run -s cli -- reproduce locomo-table3 --data /d/l.json',
    );
  });

  it('quotes a dataset path a shell would split or expand, so it arrives whole', () => {
    const path = "/home/me/My Data/it's $HOME/locomo10.json";
    const words = shellWords(packCommand('mem0-table1', path, null));
    expect(words).toEqual([
      'npm',
      'run',
      '-s',
      'cli',
      '--',
      'reproduce',
      'mem0-table1',
      '--data',
      path,
    ]);
  });
});
