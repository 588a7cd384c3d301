import { existsSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../atomic-file';
import { z } from 'zod';
import {
  CollectionDesignSchema,
  issueText,
  designIssues,
  type CollectionDesign,
  type DesignList,
  type DesignStoreProblem,
  type SavedDesign,
} from '../../../src-shared/designs';
import { WorkbenchError } from '../../../src-shared/errors';

export const DESIGNS_FILE = 'designs.json';
/** Bumped when the file's shape changes incompatibly; a newer file is set aside, not misread. */
export const DESIGNS_FILE_VERSION = 1;

const envelopeSchema = z.strictObject({
  version: z.literal(DESIGNS_FILE_VERSION),
  designs: z.array(z.strictObject({ design: z.unknown(), savedAt: z.string() })),
});

export interface DesignStoreOptions {
  /** Clock for `savedAt` and the set-aside file's name; injectable so tests are deterministic. */
  now?: () => Date;
}

/**
 * Saved collection designs in `<dataDir>/designs.json`. Saved designs are never lost:
 * - every write goes to a temp file that is fsynced and renamed over the old one, so a crash
 *   leaves either the old or the new file;
 * - a file that cannot be read (bad JSON, unknown version, an invalid design) is renamed to
 *   `designs.json.bad-<time>` and reported by `list()`; the designs that were still valid are
 *   written back at once, so nothing readable disappears either.
 */
export class DesignStore {
  private designs: SavedDesign[] | undefined;
  private readonly problems: DesignStoreProblem[] = [];
  private readonly file: string;
  private readonly now: () => Date;

  constructor(dataDir: string, options: DesignStoreOptions = {}) {
    this.file = join(dataDir, DESIGNS_FILE);
    this.now = options.now ?? (() => new Date());
  }

  list(): DesignList {
    return { designs: [...this.load()], problems: [...this.problems] };
  }

  get(name: string): SavedDesign | undefined {
    return this.load().find((d) => d.design.name === name);
  }

  /** Saves `design` under its name, replacing a saved design of the same name. */
  save(input: unknown): SavedDesign {
    const parsed = CollectionDesignSchema.safeParse(input);
    if (!parsed.success) {
      const first = designIssues(input)[0];
      throw new WorkbenchError(
        'INVALID_INPUT',
        `design: ${first ? issueText(first) : 'invalid'}`,
        first ? { path: ['design', ...first.path] } : {},
      );
    }
    const saved: SavedDesign = { design: parsed.data, savedAt: this.now().toISOString() };
    const designs = this.load().filter((d) => d.design.name !== saved.design.name);
    designs.push(saved);
    designs.sort((a, b) => a.design.name.localeCompare(b.design.name));
    this.write(designs);
    return saved;
  }

  delete(name: string): boolean {
    const designs = this.load();
    const kept = designs.filter((d) => d.design.name !== name);
    if (kept.length === designs.length) return false;
    this.write(kept);
    return true;
  }

  private load(): SavedDesign[] {
    if (this.designs) return this.designs;
    if (!existsSync(this.file)) {
      this.designs = [];
      return this.designs;
    }
    let raw: string;
    try {
      raw = readFileSync(this.file, 'utf8');
    } catch (error) {
      // Unreadable (permissions, a directory in the way): refuse, do not pretend it is empty,
      // or the next save would replace it.
      throw new WorkbenchError(
        'INTERNAL',
        `designs: cannot read ${this.file} (${(error as Error).message})`,
        { where: this.file, cause: error },
      );
    }
    const { designs, problem } = readDesigns(raw);
    this.designs = designs;
    if (problem !== null) {
      const movedTo = `${this.file}.bad-${this.now().toISOString().replace(/[:.]/g, '-')}`;
      renameSync(this.file, movedTo);
      this.problems.push({
        message: `${DESIGNS_FILE} could not be read (${problem}); it was kept as ${movedTo}${
          designs.length > 0 ? ` and its ${designs.length} valid design(s) were kept` : ''
        }`,
        movedTo,
      });
      if (designs.length > 0) this.write(designs);
    }
    return this.designs;
  }

  private write(designs: SavedDesign[]): void {
    const content = `${JSON.stringify({ version: DESIGNS_FILE_VERSION, designs }, null, 2)}\n`;
    try {
      writeFileAtomic(this.file, content);
    } catch (error) {
      throw new WorkbenchError(
        'INTERNAL',
        `designs: cannot write ${this.file} (${(error as Error).message}); the saved designs are unchanged`,
        { where: this.file, cause: error },
      );
    }
    this.designs = designs;
  }
}

/** The valid designs of a file's content, and what was wrong with it (null when nothing). */
export function readDesigns(raw: string): { designs: SavedDesign[]; problem: string | null } {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (error) {
    return { designs: [], problem: `not JSON: ${(error as Error).message}` };
  }
  const envelope = envelopeSchema.safeParse(json);
  if (!envelope.success) {
    const issue = envelope.error.issues[0];
    return {
      designs: [],
      problem: `unexpected shape at ${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'invalid'}`,
    };
  }
  const designs: SavedDesign[] = [];
  const bad: string[] = [];
  envelope.data.designs.forEach((entry, i) => {
    const parsed = CollectionDesignSchema.safeParse(entry.design);
    if (parsed.success) {
      designs.push({ design: parsed.data as CollectionDesign, savedAt: entry.savedAt });
    } else {
      const first = designIssues(entry.design)[0];
      bad.push(`designs[${i}]: ${first ? issueText(first) : 'invalid'}`);
    }
  });
  return { designs, problem: bad.length > 0 ? bad.join('; ') : null };
}
