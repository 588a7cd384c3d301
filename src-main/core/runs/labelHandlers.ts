import type { DomainHandlers } from '../handlers';
import { labelsToCsv, parseLabelsCsv } from '../../../src-shared/labels';
import {
  createLabelSession,
  humanLabels,
  importLabels,
  labellingSession,
  saveLabel,
} from './labels';
import type { RunStore } from './store';
import { labelAgreement } from './humanAgreement';

/**
 * The API's `labels.*` methods over one runs database (the app's and the CLI's alike). They run
 * on the writer's thread: a label is one small write, a session a few hundred rows.
 */
export function labelsHandlers(store: () => RunStore): DomainHandlers<'labels'> {
  return {
    'labels.session': async ({ runId, labeller }) => labellingSession(store(), runId, labeller),
    'labels.createSession': async ({ runId, ...request }) =>
      createLabelSession(store(), runId, request),
    'labels.save': async (input) => saveLabel(store(), input),
    'labels.agreement': async ({ runId }) => labelAgreement(store(), runId),
    'labels.export': async ({ runId }) => ({
      filename: `labels-${runId}.csv`,
      mimeType: 'text/csv',
      content: labelsToCsv(humanLabels(store(), runId)),
    }),
    'labels.import': async ({ content }) => importLabels(store(), parseLabelsCsv(content)),
  };
}
