import * as v from 'valibot';
import type { BrushRecording } from './session.ts';

/**
 * What a user loads into the brush stays after a reload, in this browser: preset files in
 * localStorage (small JSON), glTF props in IndexedDB (bytes). Storage that is full, blocked or
 * missing only means nothing is kept; it never stops the brush.
 */

const PRESETS_KEY = 'cairn.scatter.presets';
const DB_NAME = 'cairn-scatter';
const PROPS = 'props';
/** Preset files kept, at most (the newest win). */
const MAX_PRESETS = 32;

export interface SavedPreset {
  source: string;
  data: unknown;
}

export interface SavedProp {
  id: string;
  name: string;
  category: string;
  bytes: ArrayBuffer;
}

export function savedPresets(): SavedPreset[] {
  try {
    const parsed = v.safeParse(
      v.array(v.object({ source: v.string(), data: v.unknown() })),
      JSON.parse(localStorage.getItem(PRESETS_KEY) ?? '[]'),
    );
    return parsed.success ? parsed.output : [];
  } catch {
    return [];
  }
}

export function savePreset(preset: SavedPreset): void {
  try {
    const kept = savedPresets().filter((p) => p.source !== preset.source);
    localStorage.setItem(PRESETS_KEY, JSON.stringify([...kept, preset].slice(-MAX_PRESETS)));
  } catch {
    // full or blocked: not kept
  }
}

function openDb(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(DB_NAME, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(PROPS, { keyPath: 'id' });
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error ?? new Error('indexedDB.open failed'));
  });
}

export async function saveProp(prop: SavedProp): Promise<void> {
  try {
    const db = await openDb();
    await new Promise<void>((resolve, reject) => {
      const tx = db.transaction(PROPS, 'readwrite');
      tx.objectStore(PROPS).put(prop);
      tx.oncomplete = () => resolve();
      tx.onerror = () => reject(tx.error ?? new Error('put failed'));
    });
    db.close();
  } catch {
    // not kept
  }
}

export async function savedProps(): Promise<SavedProp[]> {
  try {
    const db = await openDb();
    const all = await new Promise<unknown[]>((resolve, reject) => {
      const request = db.transaction(PROPS, 'readonly').objectStore(PROPS).getAll();
      request.onsuccess = () => resolve(request.result as unknown[]);
      request.onerror = () => reject(request.error ?? new Error('getAll failed'));
    });
    db.close();
    const schema = v.object({ id: v.string(), name: v.string(), category: v.string(), bytes: v.instance(ArrayBuffer) });
    return all.flatMap((row) => {
      const parsed = v.safeParse(schema, row);
      return parsed.success ? [parsed.output] : [];
    });
  } catch {
    return [];
  }
}

const BrushEventSchema = v.variant('kind', [
  v.object({ kind: v.literal('preset'), presetId: v.string() }),
  v.object({ kind: v.literal('reseed'), seed: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(0xffffffff)) }),
  v.object({
    kind: v.literal('paint'),
    x: v.pipe(v.number(), v.finite()),
    z: v.pipe(v.number(), v.finite()),
    radius: v.pipe(v.number(), v.finite(), v.minValue(0)),
  }),
  v.object({
    kind: v.literal('erase'),
    x: v.pipe(v.number(), v.finite()),
    z: v.pipe(v.number(), v.finite()),
    radius: v.pipe(v.number(), v.finite(), v.minValue(0)),
  }),
]);

/** The schema of a saved recording (what "Save recording" writes). */
export const BrushRecordingSchema = v.object({
  version: v.literal(1),
  seed: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(0xffffffff)),
  events: v.array(BrushEventSchema),
});

/** Parses a recording file's JSON; the problems name the bad fields. */
export function parseRecording(input: unknown): { ok: true; recording: BrushRecording } | { ok: false; problem: string } {
  const result = v.safeParse(BrushRecordingSchema, input);
  if (result.success) return { ok: true, recording: result.output };
  return { ok: false, problem: result.issues.map((issue) => `${v.getDotPath(issue) ?? 'recording'}: ${issue.message}`).join('\n') };
}
