import packageJson from '../package.json';

/**
 * The one mem0ai release the `mem0` preset runs, read from package.json's exact pin so no label,
 * message or check types it a second time (the preset refuses any other installed version).
 */
function pinnedVersion(): string {
  const pin: string | undefined = packageJson.dependencies.mem0ai;
  // An exact pin only: a range would let another release run under this version's name.
  if (!/^\d+\.\d+\.\d+$/.test(pin ?? ''))
    throw new Error(`package.json: dependencies.mem0ai must be an exact version (got "${pin}")`);
  return pin as string;
}

export const MEM0_LIBRARY_VERSION = pinnedVersion();

/** How a row, a label or a note names the released library. */
export const MEM0_LIBRARY_NAME = `Mem0 (mem0ai ${MEM0_LIBRARY_VERSION})`;
