import { safeStorage } from 'electron';
import { existsSync, readFileSync, renameSync } from 'node:fs';
import { z } from 'zod';
import { writeFileAtomic } from '../core/atomic-file';
import type { KeyStore } from '../core/models';

/**
 * API keys in the OS keychain's care: Electron's safeStorage encrypts each key with a key the OS
 * keeps (Keychain, DPAPI, libsecret/kwallet), and only the ciphertext (base64) is written to
 * `<userData>/keys.json`. Keys are decrypted into `process.env` at startup so experiment workers
 * started later inherit them; nothing here logs or returns a key.
 */
/** Key variable name -> base64 ciphertext. */
const keyFileSchema = z.record(z.string(), z.string());

export function createSafeStorageKeyStore(file: string): KeyStore & { loadIntoEnv(): void } {
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
  return {
    has: (name) => Object.hasOwn(read(), name),
    set(name, key) {
      if (!safeStorage.isEncryptionAvailable()) {
        throw new Error('keychain: OS encryption is not available; set the key in the environment');
      }
      write({ ...read(), [name]: safeStorage.encryptString(key).toString('base64') });
    },
    clear(name) {
      const entries = read();
      if (!Object.hasOwn(entries, name)) return false;
      delete entries[name];
      write(entries);
      return true;
    },
    loadIntoEnv() {
      if (!safeStorage.isEncryptionAvailable()) return;
      for (const [name, cipher] of Object.entries(read())) {
        try {
          process.env[name] = safeStorage.decryptString(Buffer.from(cipher, 'base64'));
        } catch {
          // A key encrypted under another OS user cannot be read; it shows as "not set".
        }
      }
    },
  };
}
