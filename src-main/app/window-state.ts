import { readFileSync, writeFileSync } from 'node:fs';
import { z } from 'zod';

const WindowStateSchema = z.object({
  width: z.number().int().min(400).max(10000),
  height: z.number().int().min(300).max(10000),
  x: z.number().int().optional(),
  y: z.number().int().optional(),
  maximized: z.boolean().default(false),
});
export type WindowState = z.infer<typeof WindowStateSchema>;

const DEFAULT_STATE: WindowState = { width: 1400, height: 900, maximized: false };

/** A missing or damaged state file just means default geometry; it never stops the app. */
export function loadWindowState(file: string): WindowState {
  try {
    return WindowStateSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
  } catch {
    return DEFAULT_STATE;
  }
}

export function saveWindowState(file: string, state: WindowState): void {
  try {
    writeFileSync(file, JSON.stringify(state));
  } catch {
    // Losing window geometry is harmless; never fail a quit over it.
  }
}
