import { readFileSync } from 'node:fs';
import { LABEL_CSV_COLUMNS } from '../../../src-shared/labels';
import { fromSystemError } from '../../core/system-errors';
import { UsageError, defineCommand } from '../command';
import { printable, writeOutput } from '../output';
import { OUT_OPTION, RUNS_DB_OPTIONS } from '../options';
import { withRunsApi } from '../runsApi';

const DESCRIPTION = `Carries human labels of a run's answers (given in the Runs view's labelling mode) between data
folders, so several people can label the same run and their agreement be computed.
  export <run id>  every label of the run as CSV, one row per answer and labeller
  import <file>    adds a labels CSV to this runs database, all rows or none; each row must name a
                   run this database holds and one of its final answers. A labeller's label of an
                   answer replaces an older one of theirs, never a newer one.
Columns: ${LABEL_CSV_COLUMNS.join(', ')}.
\`report <run id>\` prints the agreement between labellers and each judge against the labels.`;

export const labelsCommand = defineCommand({
  summary: "export or import human labels of a run's answers as CSV",
  usage: `usage: npm run -s cli -- labels export <run id> [--out <file>] [options]
       npm run -s cli -- labels import <file> [options]`,
  description: DESCRIPTION,
  options: { ...OUT_OPTION, ...RUNS_DB_OPTIONS },
  async run({ values, positionals }, io) {
    const [action, target, ...extra] = positionals;
    if ((action !== 'export' && action !== 'import') || target === undefined || extra.length > 0)
      throw new UsageError('labels takes export <run id> or import <file>');
    if (action === 'import' && values.out !== undefined)
      throw new UsageError('--out is for labels export');
    return withRunsApi(values, async (api) => {
      if (action === 'export') {
        const { content } = await api.call('labels.export', { runId: target });
        writeOutput(io, values.out, content, 'labels export');
        return 0;
      }
      let content: string;
      try {
        content = readFileSync(target, 'utf8');
      } catch (error) {
        throw fromSystemError(error, `labels import: cannot read ${target}`) ?? error;
      }
      const result = await api.call('labels.import', { content });
      io.stdout(
        `imported ${result.imported} labels of ${result.runs.map(printable).join(', ') || 'no run'} by ${result.labellers.map(printable).join(', ') || 'nobody'} into ${api.store.file}\n`,
      );
      return 0;
    });
  },
});
