import type { ExportedFile } from '@shared/api';

/**
 * Saves an exported file through the browser's own download path: a Blob URL on a temporary
 * `<a download>`. Electron routes the same click to its download manager (a save dialog), so the
 * desktop app needs no IPC of its own for exports.
 */
export function downloadFile(file: ExportedFile): void {
  downloadBlob(new Blob([file.content], { type: file.mimeType }), file.filename);
}

/** The same download for bytes made in the page (a figure's PNG). */
export function downloadBlob(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  link.style.display = 'none';
  // Firefox ignores clicks on links that are not in the document.
  document.body.append(link);
  link.click();
  link.remove();
  // Revoked later, not now: the browser may start reading the Blob after click() returns.
  setTimeout(() => URL.revokeObjectURL(url), 30_000);
}
