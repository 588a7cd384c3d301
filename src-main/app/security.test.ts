import { describe, expect, it } from 'vitest';
import { DOC_LINKS } from '../../src-shared/links';
import { externalLinkToOpen, permissionGranted } from './security';

describe('desktop shell security decisions', () => {
  it('denies every permission request and check by default', () => {
    for (const permission of [
      'media',
      'geolocation',
      'notifications',
      'clipboard-read',
      'clipboard-sanitized-write',
      'openExternal',
      'fileSystem',
      'hid',
      'serial',
      'usb',
      'midiSysex',
      'unknown',
      'made-up-permission',
    ]) {
      expect(permissionGranted(permission), permission).toBe(false);
    }
  });

  it("opens only the app's own https doc links", () => {
    for (const link of Object.values(DOC_LINKS)) expect(externalLinkToOpen(link)).toBe(link);
    // Normalised before comparing: case of scheme and host does not matter.
    expect(externalLinkToOpen('HTTPS://SNAP-RESEARCH.github.io/locomo/')).toBe(DOC_LINKS.locomo);
    for (const url of [
      'https://attacker.example/',
      'https://snap-research.github.io/locomo/../../evil',
      'https://snap-research.github.io/locomo/?next=https://attacker.example',
      'https://user:pass@snap-research.github.io/locomo/',
      'http://snap-research.github.io/locomo/',
      'file:///etc/passwd',
      'javascript:alert(1)',
      'ms-msdt:/id PCWDiagnostic',
      'not a url',
    ]) {
      expect(externalLinkToOpen(url), url).toBeNull();
    }
  });
});
