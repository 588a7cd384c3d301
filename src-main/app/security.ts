import { DOC_LINKS } from '../../src-shared/links';

/**
 * The desktop shell's security decisions as plain functions, so they are tested under Node; main.ts
 * only wires them to Electron's handlers.
 */

/**
 * Permissions the renderer may use (camera, notifications, clipboard reads, HID...). The UI needs
 * none, so every request and check is denied; a feature that needs one adds it here.
 */
const GRANTED_PERMISSIONS: ReadonlySet<string> = new Set();

export function permissionGranted(permission: string): boolean {
  return GRANTED_PERMISSIONS.has(permission);
}

const OPENABLE_LINKS: ReadonlySet<string> = new Set(
  Object.values(DOC_LINKS).map((link) => new URL(link).href),
);

/**
 * The URL to hand to the OS browser, or null: only https links the app itself renders (DOC_LINKS),
 * compared after URL normalisation so `HTTPS://Example` tricks cannot slip past.
 */
export function externalLinkToOpen(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (parsed.protocol !== 'https:' || parsed.username !== '' || parsed.password !== '') return null;
  return OPENABLE_LINKS.has(parsed.href) ? parsed.href : null;
}
