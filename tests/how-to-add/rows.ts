import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The "How to add" rows of docs/architecture.md, each as the toy addition a newcomer makes by
 * following the table: files it creates and the one-place edits (find exactly once, replace) it
 * makes. how-to-add.test.ts applies them all to a scratch copy and counts the files each row
 * touched against `files`, the count the table states.
 */

export interface Edit {
  file: string;
  find: string;
  replace: string;
}

export interface Row {
  /** The table's "to add" cell. */
  name: string;
  /** How many files the table says the row takes (new ones and edited ones). */
  files: number;
  create: Record<string, string>;
  edits: Edit[];
  /**
   * Tests that walk the registry the row adds to (plus the row's own surfaces). The scratch test
   * runs the whole unit suite; those outside it (integration tests) run with it.
   */
  tests: string[];
}

const toy = (name: string): string => readFileSync(join(__dirname, 'toys', name), 'utf8');

/** A copy of an existing module with its names replaced: the toy is as real as its model. */
function copyOf(repo: string, file: string, replacements: Array<[RegExp, string]>): string {
  let text = readFileSync(join(repo, file), 'utf8');
  for (const [from, to] of replacements) text = text.replace(from, to);
  return text;
}

export function howToAddRows(repo: string): Row[] {
  return [
    {
      name: 'a metric',
      files: 2,
      create: {
        'src-shared/metrics/toyLength.ts': toy('toyLength.metric.txt'),
      },
      edits: [
        {
          file: 'src-shared/metrics/builtin.ts',
          find: "import type { MetricDefinition } from './types';",
          replace:
            "import type { MetricDefinition } from './types';\nimport { toyLengthMetric } from './toyLength';",
        },
        {
          file: 'src-shared/metrics/builtin.ts',
          // The list's closing bracket, not its last entry: a metric added later must not move it.
          find: '\n];',
          replace: '\n  toyLengthMetric,\n];',
        },
      ],
      tests: [
        'src-shared/metrics',
        'src-shared/experiment.test.ts',
        'src-shared/benchmarks',
        'src-main/core/runs/db.test.ts',
        'src-renderer/src/views/runs/shape.test.ts',
        'tests/integration/registry.test.ts',
      ],
    },
    {
      name: 'an index kind',
      files: 2,
      create: {
        'src-shared/index-kinds/toyFifo.ts': copyOf(repo, 'src-shared/index-kinds/fifo.ts', [
          [/\bfifo(?=[A-Z])/g, 'toyFifo'],
          [/\bFifo/g, 'ToyFifo'],
          [/'fifo'/g, "'toy-fifo'"],
        ]),
      },
      edits: [
        {
          file: 'src-shared/index-kinds/registry.ts',
          find: "import { fifoKind } from './fifo';",
          replace: "import { fifoKind } from './fifo';\nimport { toyFifoKind } from './toyFifo';",
        },
        {
          file: 'src-shared/index-kinds/registry.ts',
          find: 'graphKind] as const;',
          replace: 'graphKind, toyFifoKind] as const;',
        },
      ],
      tests: ['src-shared/index-kinds', 'src-main/core/designs/kinds-contract.test.ts'],
    },
    {
      name: 'a memory preset',
      files: 2,
      create: {
        'src-main/core/memory/presets/toyText.ts': copyOf(
          repo,
          'src-main/core/memory/presets/text.ts',
          [
            [/\btextPreset\b/g, 'toyTextPreset'],
            [/\btextPresetDefinition\b/g, 'toyTextPresetDefinition'],
            [/name: 'text'/, "name: 'toy-text'"],
          ],
        ),
      },
      edits: [
        {
          file: 'src-main/core/memory/presets/index.ts',
          find: "import { textPresetDefinition } from './text';",
          replace:
            "import { textPresetDefinition } from './text';\nimport { toyTextPresetDefinition } from './toyText';",
        },
        {
          file: 'src-main/core/memory/presets/index.ts',
          find: '  textPresetDefinition,\n',
          replace: '  textPresetDefinition,\n  toyTextPresetDefinition,\n',
        },
      ],
      tests: ['src-main/core/memory/presets/definitions.test.ts'],
    },
    {
      name: 'a CLI command',
      files: 2,
      create: { 'src-main/cli/commands/toy.ts': toy('toy.command.txt') },
      edits: [
        {
          file: 'src-main/cli/main.ts',
          find: "import { workerCommand } from './commands/worker';",
          replace:
            "import { workerCommand } from './commands/worker';\nimport { toyCommand } from './commands/toy';",
        },
        {
          file: 'src-main/cli/main.ts',
          find: "  'memory-check': memoryCheckCommand,\n",
          replace: "  'memory-check': memoryCheckCommand,\n  toy: toyCommand,\n",
        },
      ],
      tests: ['src-main/cli/main.test.ts'],
    },
    {
      name: 'a view',
      files: 2,
      create: { 'src-renderer/src/views/toy/ToyView.tsx': toy('ToyView.txt') },
      edits: [
        {
          file: 'src-renderer/src/views/index.ts',
          find: '] as const satisfies readonly ViewEntry[];',
          replace:
            "  { id: 'toy', label: 'Toy', component: lazyView(() => import('./toy/ToyView'), 'ToyView') },\n] as const satisfies readonly ViewEntry[];",
        },
      ],
      tests: ['src-renderer/src/views/index.test.ts'],
    },
    {
      name: 'a benchmark',
      files: 4,
      create: {
        'src-main/core/dataset/toyqa.ts': toy('toyqa.loader.txt'),
        'src-shared/benchmarks/toyqa.ts': toy('toyqa.profile.txt'),
      },
      edits: [
        {
          file: 'src-main/core/dataset/load.ts',
          find: "import { longMemEvalLoader } from './longmemeval';",
          replace:
            "import { longMemEvalLoader } from './longmemeval';\nimport { toyQaLoader } from './toyqa';",
        },
        {
          file: 'src-main/core/dataset/load.ts',
          // After the first registration (LoCoMo, the fallback), which a new benchmark never moves.
          find: '    .register(locomoLoader, { fallback: true })\n',
          replace: '    .register(locomoLoader, { fallback: true })\n    .register(toyQaLoader)\n',
        },
        {
          file: 'src-shared/benchmarks/index.ts',
          find: "import { LONGMEMEVAL_PROFILE, currentDateQuestion } from './longmemeval';",
          replace:
            "import { LONGMEMEVAL_PROFILE, currentDateQuestion } from './longmemeval';\nimport { TOYQA_PROFILE } from './toyqa';",
        },
        {
          file: 'src-shared/benchmarks/index.ts',
          // After LoCoMo, which stays first: a benchmark added later must not move the anchor.
          find: 'const BUILTIN_PROFILES: readonly BenchmarkProfile[] = [\n  LOCOMO_PROFILE,\n',
          replace:
            'const BUILTIN_PROFILES: readonly BenchmarkProfile[] = [\n  LOCOMO_PROFILE,\n  TOYQA_PROFILE,\n',
        },
      ],
      tests: [
        'src-shared/benchmarks',
        'src-shared/paperTables.test.ts',
        'src-main/core/dataset',
        'src-main/cli/main.test.ts',
        'tests/integration/registry.test.ts',
      ],
    },
    {
      name: 'an answer protocol',
      files: 2,
      create: {},
      edits: [
        {
          file: 'src-shared/experiment/answerer.ts',
          find: '} as const satisfies Readonly<Record<string, ProtocolFace>>;',
          replace:
            "  'toy-answer': { label: 'Toy answer prompt', help: 'the workbench LoCoMo-style prompt, under a toy name' },\n} as const satisfies Readonly<Record<string, ProtocolFace>>;",
        },
        {
          file: 'src-main/core/answer/protocols.ts',
          find: '};\n\nexport function answerProtocol(',
          replace:
            "  'toy-answer': {\n    name: 'toy-answer',\n    record: promptRecordOf('toy-answer', { ...ANSWER_TEMPLATES.locomo, memoryOrder: WORKBENCH_MEMORY_ORDER }),\n    maxTokens: null,\n    needsConversation: false,\n    build: (request) => buildAnswerPrompt('locomo', request),\n  },\n};\n\nexport function answerProtocol(",
        },
      ],
      tests: [
        'src-main/core/answer/protocol-faces.test.ts',
        'src-main/core/answer/protocols.test.ts',
        'src-main/cli/main.test.ts',
        'src-renderer/src/views/experiments',
      ],
    },
    {
      name: 'a judge protocol',
      files: 2,
      create: {},
      edits: [
        {
          file: 'src-shared/experiment/judge.ts',
          find: '} as const satisfies Readonly<Record<string, JudgeProtocolFace>>;',
          replace:
            "  'toy-judge': {\n    label: 'Toy judge',\n    help: 'the strict judge, asking for one word',\n    temperatureZero: false,\n  },\n} as const satisfies Readonly<Record<string, JudgeProtocolFace>>;",
        },
        {
          file: 'src-main/core/answer/judge-protocols.ts',
          find: "  'workbench-v1': slotProtocol('workbench-v1', JUDGE_TEMPLATE, false),\n",
          replace:
            "  'workbench-v1': slotProtocol('workbench-v1', JUDGE_TEMPLATE, false),\n  'toy-judge': slotProtocol('toy-judge', `${STRICT_JUDGE_TEMPLATE}\\nAnswer in one word.`, true),\n",
        },
      ],
      tests: [
        'src-main/core/answer/protocol-faces.test.ts',
        'src-main/core/answer/judge-protocols.test.ts',
        'src-shared/benchmarks',
        'tests/integration/llm-score-cli.test.ts',
        'src-renderer/src/views/models',
      ],
    },
    {
      // A boolean `toyShout`: the pipeline writes every answer in capitals. Schema, CLI flag and
      // its reading, the form's control, and the engine line that acts on it: five files.
      name: 'a run config field',
      files: 5,
      create: {},
      edits: [
        {
          file: 'src-shared/experiment/config.ts',
          find: '    maxConsecutiveFailures: z.number().int().min(1).max(1_000_000).optional(),\n',
          replace:
            '    maxConsecutiveFailures: z.number().int().min(1).max(1_000_000).optional(),\n    /** Toy: every answer written in capitals. No default, so configs hash as before. */\n    toyShout: z.boolean().optional(),\n',
        },
        {
          file: 'src-main/cli/options.ts',
          find: "  'skip-invalid': {\n",
          replace:
            "  'toy-shout': { type: 'boolean', default: false, help: 'write every answer in capitals' },\n  'skip-invalid': {\n",
        },
        {
          file: 'src-main/cli/request.ts',
          find: "  if (values['skip-invalid']) merged['skipInvalid'] = true;\n",
          replace:
            "  if (values['skip-invalid']) merged['skipInvalid'] = true;\n  if (values['toy-shout']) merged['toyShout'] = true;\n",
        },
        {
          file: 'src-renderer/src/views/experiments/RunForm.tsx',
          find: '  const [includeNoEvidence, setIncludeNoEvidence] = useState(SCHEMA_DEFAULTS.includeNoEvidence);\n',
          replace:
            '  const [includeNoEvidence, setIncludeNoEvidence] = useState(SCHEMA_DEFAULTS.includeNoEvidence);\n  const [toyShout, setToyShout] = useState(false);\n',
        },
        {
          file: 'src-renderer/src/views/experiments/RunForm.tsx',
          find: '      includeNoEvidence,\n',
          replace: '      includeNoEvidence,\n      ...(toyShout ? { toyShout: true } : {}),\n',
        },
        {
          file: 'src-renderer/src/views/experiments/RunForm.tsx',
          find: '            Ask questions without usable evidence (at the last packet)\n          </span>\n        </label>\n',
          replace:
            '            Ask questions without usable evidence (at the last packet)\n          </span>\n        </label>\n        <label className="field field-wide field-check">\n          <span>\n            <input\n              type="checkbox"\n              checked={toyShout}\n              onChange={(event) => setToyShout(event.currentTarget.checked)}\n            />{\' \'}\n            Write every answer in capitals\n          </span>\n        </label>\n',
        },
        {
          file: 'src-main/core/pipeline/askQuestion.ts',
          // The answered record: where an answer becomes the prediction that is stored and scored.
          find: '  const refs = toRefs(attempt.hits);\n  const context = retrievedContext(refs, topK);\n',
          replace:
            '  if (job.config.toyShout) result = { ...result, answer: result.answer.toUpperCase() };\n  const refs = toRefs(attempt.hits);\n  const context = retrievedContext(refs, topK);\n',
        },
      ],
      tests: [
        'src-shared/experiment.test.ts',
        'src-main/cli/help.test.ts',
        'src-main/cli/main.test.ts',
        'src-renderer/src/views/experiments',
        'src-main/core/pipeline/runner.test.ts',
      ],
    },
  ];
}
