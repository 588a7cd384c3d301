import { EXPORT_FORMATS, type ExportFormat } from '../../core/runs/export';
import { writeOutput } from '../output';
import { UsageError, defineCommand } from '../command';
import { withRunsApi } from '../runsApi';
import { OUT_OPTION, RUNS_DB_OPTIONS } from '../options';

const DESCRIPTION = `Writes a run's results. JSON: {"run": manifest + status, "answers": each question's final answer,
"testAnswers": every answer of every test}. CSV: the final answers, one row per question. HTML:
the run as one self-contained report to share.`;

function isFormat(value: string): value is ExportFormat {
  return (EXPORT_FORMATS as readonly string[]).includes(value);
}

export const exportCommand = defineCommand({
  summary: "write a run's answers as JSON or CSV",
  usage: 'usage: npm run -s cli -- export <run id> --format <format> [options]',
  description: DESCRIPTION,
  options: {
    format: {
      type: 'string',
      help: 'output format, required (html: the report of `report --html`)',
      choices: () => EXPORT_FORMATS,
    },
    ...OUT_OPTION,
    ...RUNS_DB_OPTIONS,
  },
  async run({ values, positionals }, io) {
    if (positionals.length !== 1) throw new UsageError('export takes one run id');
    const format = values.format;
    if (format === undefined || !isFormat(format)) {
      throw new UsageError(
        `--format must be one of ${EXPORT_FORMATS.join(', ')}${format === undefined ? '' : ` (got "${format}")`}`,
      );
    }
    return withRunsApi(values, async (api) => {
      const { content: text } = await api.call('runs.export', {
        runId: positionals[0] as string,
        format,
      });
      writeOutput(io, values.out, text, 'export');
      return 0;
    });
  },
});
