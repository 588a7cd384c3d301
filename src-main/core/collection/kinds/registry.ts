import { WorkbenchError } from '../../../../src-shared/errors';
import type { AnyIndexEngine } from '../../../../src-shared/index-kinds/engine';
import { INDEX_KINDS, type IndexKinds } from '../../../../src-shared/index-kinds/registry';

/** The built-in kinds: every kind in src-shared/index-kinds/registry.ts (face and engine). */
type BuiltInKindMap = { [K in IndexKinds[number] as K['type']]: K };

/**
 * The index kinds a collection knows, by `type`, for typed configs: the built-ins, plus any kind
 * registered with registerIndexKind from its own file that adds itself here with a
 * `declare module` block.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- open for declaration merging
export interface IndexKindMap extends BuiltInKindMap {}

const kinds = new Map<string, AnyIndexEngine>();

const KIND_TYPE_PATTERN = /^[a-z][a-z0-9-]{0,31}$/;
const SQL_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/** Makes a kind available to every collection opened afterwards in this process. */
export function registerIndexKind(kind: AnyIndexEngine): void {
  const existing = kinds.get(kind.type);
  if (existing === kind) return;
  if (existing) {
    throw new WorkbenchError('CONFLICT', `index kind '${kind.type}' is already registered`);
  }
  if (!KIND_TYPE_PATTERN.test(kind.type)) {
    throw new WorkbenchError(
      'INVALID_INPUT',
      `index kind type ${JSON.stringify(kind.type)} must be 1-32 lowercase letters, digits or '-', starting with a letter`,
    );
  }
  // The member table's name is put into SQL text, so it must be a plain identifier.
  if (!SQL_NAME_PATTERN.test(kind.memberTable)) {
    throw new WorkbenchError(
      'INVALID_INPUT',
      `index kind '${kind.type}': member table ${JSON.stringify(kind.memberTable)} must be a plain SQL identifier`,
    );
  }
  kinds.set(kind.type, kind);
}

for (const kind of INDEX_KINDS) registerIndexKind(kind);

/** The kind registered for `type`, or undefined. */
export function findIndexKind(type: string): AnyIndexEngine | undefined {
  return kinds.get(type);
}

/** Every registered kind's type, in registration order (built-ins first). */
export function indexKindTypes(): string[] {
  return [...kinds.keys()];
}
