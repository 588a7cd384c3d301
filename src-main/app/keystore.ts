import { existsSync, readFileSync, renameSync } from 'node:fs';
import { z } from 'zod';
import { writeFileAtomic } from '../core/atomic-file';
import type { KeyStore } from '../core/models';

/**
 * API keys in the OS keychain's care: Electron's safeStorage encrypts each key with a key the OS
 * keeps (Keychain, DPAPI, libsecret/kwallet), and only the ciphertext (base64) is written to
 * `<userData>/keys.json`. Decrypted keys stay in this store's own map and reach the LLM clients
 * through an ApiKeySource (core/keys.ts); nothing here writes `process.env` (a renderer that could
 * name a variable would otherwise set PATH, NODE_OPTIONS or LD_PRELOAD for every later launch).
 * Nothing here logs or returns a key except `get`, which only the main process calls.
 *
 * safeStorage is passed in, not imported, so this runs (and is tested) under plain Node.
 */

/** The part of Electron's `safeStorage` this store uses. */
export interface SafeStorageLike {
  isEncryptionAvailable(): boolean;
  encryptString(plainText: string): Buffer;
  decryptString(encrypted: Buffer): string;
  /** Linux only; `basic_text` means no keyring was found and keys are merely obfuscated. */
  getSelectedStorageBackend?(): string;
}

/** Key variable name -> base64 ciphertext. */
const keyFileSchema = z.record(z.string(), z.string());

/**
 * Why stored keys are not really protected, or null when they are. On Linux without a keyring
 * (libsecret, kwallet) Electron falls back to `basic_text`: a fixed password any program can use.
 */
export function keychainWarning(platform: string, safeStorage: SafeStorageLike): string | null {
  if (platform !== 'linux') return null;
  if (safeStorage.getSelectedStorageBackend?.() !== 'basic_text') return null;
  return 'keychain: no OS keyring (libsecret or kwallet) was found, so Electron stores API keys with a fixed password (basic_text): anyone who can read keys.json can read them. Install and unlock a keyring, or set keys in the environment instead.';
}

export interface SafeStorageKeyStoreOptions {
  /** Default: `process.platform`. */
  platform?: string;
  /** Told once, on the first key stored while encryption is weak (default: console.warn). */
  warn?: (message: string) => void;
}

export function createSafeStorageKeyStore(
  file: string,
  safeStorage: SafeStorageLike,
  options: SafeStorageKeyStoreOptions = {},
): KeyStore {
  const warn = options.warn ?? ((message: string) => console.warn(message));
  const platform = options.platform ?? process.platform;
  let warned = false;

  const read = (): Record<string, string> => {
    if (!existsSync(file)) return {};
    let entries: Record<string, string> | null = null;
    try {
      const parsed = keyFileSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
      if (parsed.success) entries = parsed.data;
    } catch {
      // not JSON: set aside below
    }
    if (entries === null) {
      // Kept, not overwritten by the next save: its ciphertexts may still be recoverable.
      const movedTo = `${file}.bad-${Date.now()}`;
      renameSync(file, movedTo);
      console.warn(`keychain: ${file} was unreadable and was kept as ${movedTo}`);
      return {};
    }
    return entries;
  };
  const write = (entries: Record<string, string>): void =>
    writeFileAtomic(file, `${JSON.stringify(entries, null, 2)}\n`, { mode: 0o600 });

  /** Decrypted once at startup (safeStorage works only after the app is ready). */
  const keys = new Map<string, string>();
  if (safeStorage.isEncryptionAvailable()) {
    for (const [name, cipher] of Object.entries(read())) {
      try {
        keys.set(name, safeStorage.decryptString(Buffer.from(cipher, 'base64')));
      } catch {
        // A key encrypted under another OS user cannot be read; it shows as "not set".
      }
    }
  }

  return {
    get: (name) => keys.get(name),
    set(name, key) {
      if (!safeStorage.isEncryptionAvailable()) {
        throw new Error('keychain: OS encryption is not available; set the key in the environment');
      }
      const weak = keychainWarning(platform, safeStorage);
      if (weak !== null && !warned) {
        warned = true;
        warn(weak);
      }
      write({ ...read(), [name]: safeStorage.encryptString(key).toString('base64') });
      keys.set(name, key);
    },
    clear(name) {
      const entries = read();
      const stored = Object.hasOwn(entries, name);
      if (stored) {
        delete entries[name];
        write(entries);
      }
      return keys.delete(name) || stored;
    },
  };
}
