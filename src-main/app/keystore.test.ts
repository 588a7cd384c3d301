import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiKeySource } from '../core/keys';
import { createSafeStorageKeyStore, keychainWarning, type SafeStorageLike } from './keystore';

const SECRET = 'sk-keychain-test-0123456789';

/** Electron's safeStorage stand-in: a reversible transform, so ciphertext never equals the key. */
function fakeSafeStorage(backend = 'gnome_libsecret', available = true): SafeStorageLike {
  return {
    isEncryptionAvailable: () => available,
    encryptString: (plain) => Buffer.from(`enc:${[...plain].reverse().join('')}`),
    decryptString: (cipher) => {
      const text = cipher.toString();
      if (!text.startsWith('enc:')) throw new Error('cannot decrypt');
      return [...text.slice(4)].reverse().join('');
    },
    getSelectedStorageBackend: () => backend,
  };
}

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mw-keystore-'));
  file = join(dir, 'keys.json');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('safeStorage keystore', () => {
  it('keeps keys in its own map and ciphertext on disk; process.env is never written', () => {
    const envBefore = { ...process.env };
    const store = createSafeStorageKeyStore(file, fakeSafeStorage());
    store.set('OPENAI_API_KEY', SECRET);
    // Names the renderer could pass: stored like any other, but never become variables.
    store.set('NODE_OPTIONS', '--require /tmp/evil.js');
    store.set('PATH', '/tmp/evil');
    expect(process.env).toEqual(envBefore);
    expect(store.get('OPENAI_API_KEY')).toBe(SECRET);
    expect(readFileSync(file, 'utf8')).not.toContain(SECRET);

    // The next launch decrypts into its map, again without touching the environment.
    const relaunched = createSafeStorageKeyStore(file, fakeSafeStorage());
    expect(relaunched.get('OPENAI_API_KEY')).toBe(SECRET);
    expect(relaunched.get('PATH')).toBe('/tmp/evil');
    expect(process.env).toEqual(envBefore);

    expect(relaunched.clear('OPENAI_API_KEY')).toBe(true);
    expect(relaunched.get('OPENAI_API_KEY')).toBeUndefined();
    expect(relaunched.clear('OPENAI_API_KEY')).toBe(false);
    expect(
      createSafeStorageKeyStore(file, fakeSafeStorage()).get('OPENAI_API_KEY'),
    ).toBeUndefined();
  });

  it('gives its keys to an ApiKeySource only under key variable names', () => {
    const store = createSafeStorageKeyStore(file, fakeSafeStorage());
    store.set('OPENAI_API_KEY', SECRET);
    store.set('PATH', '/tmp/evil');
    const source = new ApiKeySource({ env: {}, keychain: store });
    expect(source.get('OPENAI_API_KEY', 'models', ['apiKeyEnv'])).toBe(SECRET);
    expect(source.sourceOf('OPENAI_API_KEY')).toBe('keychain');
    expect(source.sourceOf('PATH')).toBeNull();
    expect(() => source.get('PATH', 'models', ['apiKeyEnv'])).toThrow(
      /"PATH" is not a key variable/,
    );
  });

  it('shows a key it cannot decrypt as not set and keeps its ciphertext', () => {
    writeFileSync(
      file,
      JSON.stringify({ OTHER_USER_API_KEY: Buffer.from('x').toString('base64') }),
    );
    const store = createSafeStorageKeyStore(file, fakeSafeStorage());
    expect(store.get('OTHER_USER_API_KEY')).toBeUndefined();
    store.set('OPENAI_API_KEY', SECRET);
    expect(Object.keys(JSON.parse(readFileSync(file, 'utf8')) as object).sort()).toEqual([
      'OPENAI_API_KEY',
      'OTHER_USER_API_KEY',
    ]);
  });

  it('refuses to store a key when the OS offers no encryption', () => {
    const store = createSafeStorageKeyStore(file, fakeSafeStorage('unknown', false));
    expect(() => store.set('OPENAI_API_KEY', SECRET)).toThrow(
      'keychain: OS encryption is not available; set the key in the environment',
    );
    expect(store.get('OPENAI_API_KEY')).toBeUndefined();
  });

  it('warns once when Linux falls back to basic_text, and only then', () => {
    const warnings: string[] = [];
    const weak = createSafeStorageKeyStore(file, fakeSafeStorage('basic_text'), {
      platform: 'linux',
      warn: (m) => warnings.push(m),
    });
    weak.set('OPENAI_API_KEY', SECRET);
    weak.set('OTHER_API_KEY', SECRET);
    expect(warnings).toEqual([keychainWarning('linux', fakeSafeStorage('basic_text'))]);
    expect(warnings[0]).toMatch(/^keychain: no OS keyring .*basic_text/);

    const quiet: string[] = [];
    createSafeStorageKeyStore(join(dir, 'k2.json'), fakeSafeStorage('gnome_libsecret'), {
      platform: 'linux',
      warn: (m) => quiet.push(m),
    }).set('OPENAI_API_KEY', SECRET);
    expect(quiet).toEqual([]);
    expect(keychainWarning('darwin', fakeSafeStorage('basic_text'))).toBeNull();
    expect(keychainWarning('linux', fakeSafeStorage('kwallet5'))).toBeNull();
  });
});
