import { memoryProtocolJsonSchema } from '../../../src-shared/memory-protocol';
import {
  DEFAULT_LAG_LIMIT_MS,
  SLOW_LOOPBACK_P50_MS,
  formatConformance,
  runConformance,
} from '../../core/memory/external/conformance';
import { UsageError, defineCommand, positiveIntFlag } from '../command';
import { JSON_OPTION, configOption } from '../options';

const DESCRIPTION = `Checks a memory service against the memory protocol (docs/memory-protocol.md) on a small synthetic
conversation: does it honour top_k, keep both speakers' turns, return items best first and in the
same order when asked again, date memories by the session date-times rather than the wall clock,
cite dia_ids that exist, survive concurrent retrieves, keep within the deadlines, answer an
unknown session with UNKNOWN_SESSION; how soon is an inserted fact retrievable (indexing lag, also
allowed before the content checks); and, on this machine (HTTP or stdio), is a call slow (p50 over
${SLOW_LOOPBACK_P50_MS} ms) or are parallel HTTP calls served one at a time (a warning with the fix). One
cause is one FAIL with a hint naming the fix: the checks that depend on it are skipped with that
cause. Exits 1 when a check fails.`;

export const memoryCheckCommand = defineCommand({
  summary: 'check your own memory service against the memory protocol (conformance report)',
  usage: `usage: npm run -s cli -- memory-check <url> [options]
       npm run -s cli -- memory-check --command "<cmd>" [options]
       npm run -s cli -- memory-check --schema`,
  description: DESCRIPTION,
  options: {
    command: {
      type: 'string',
      value: '"<cmd>"',
      help: 'start the service as a process speaking JSON lines on stdio',
    },
    'allow-remote': {
      type: 'boolean',
      default: false,
      help: 'let <url> name a host other than this machine',
    },
    'insert-timeout-ms': configOption('timeouts.insertMs', {
      type: 'string',
      value: '<n>',
      help: 'insert deadline, as in experiments',
    }),
    'answer-timeout-ms': configOption('timeouts.answerMs', {
      type: 'string',
      value: '<n>',
      help: 'retrieve/answer deadline, as in experiments',
    }),
    'lag-limit-ms': {
      type: 'string',
      value: '<n>',
      help: 'how long to wait for an inserted fact to be retrievable',
      absent: DEFAULT_LAG_LIMIT_MS,
    },
    json: { ...JSON_OPTION.json, help: 'print the report as one JSON object' },
    schema: {
      type: 'boolean',
      default: false,
      help: "print the protocol's JSON Schema (docs/memory-protocol.schema.json) and exit",
    },
  },
  async run({ values, positionals }, io) {
    if (values.schema) {
      io.stdout(`${JSON.stringify(memoryProtocolJsonSchema(), null, 2)}\n`);
      return 0;
    }
    if (positionals.length > 1) throw new UsageError('give one service url');
    const url = positionals[0];
    if ((url === undefined) === (values.command === undefined))
      throw new UsageError('give a service url or --command "<cmd>" (one of them)');
    const insertTimeoutMs = positiveIntFlag('--insert-timeout-ms', values['insert-timeout-ms']);
    const answerTimeoutMs = positiveIntFlag('--answer-timeout-ms', values['answer-timeout-ms']);
    const lagLimitMs = positiveIntFlag('--lag-limit-ms', values['lag-limit-ms']);
    const report = await runConformance(
      { url, command: values.command, allowRemote: values['allow-remote'] },
      {
        ...(insertTimeoutMs !== undefined ? { insertTimeoutMs } : {}),
        ...(answerTimeoutMs !== undefined ? { answerTimeoutMs } : {}),
        ...(lagLimitMs !== undefined ? { lagLimitMs } : {}),
      },
    );
    io.stdout(values.json ? `${JSON.stringify(report)}\n` : formatConformance(report));
    return report.passed ? 0 : 1;
  },
});
