/**
 * Bone-map files for `--source-map FILE.json` / `--target-map FILE.json`: a JSON object from
 * canonical bone (hips, spine, leftUpperArm, …) to the rig's bone name, as `--write-map` prints it.
 * Validated with valibot so a wrong file says which entry is wrong.
 */
import { readFile } from 'node:fs/promises';
import * as v from 'valibot';
import type { BoneMapChoice } from '../retarget/bone-map.ts';
import { mapChoice } from './cli.ts';

const MapFile = v.record(v.pipe(v.string(), v.minLength(1)), v.pipe(v.string(), v.minLength(1)));

/** A map option's value: a built-in choice, or a path ending in .json read as a custom map. */
export async function resolveMapOption(value: string | undefined): Promise<BoneMapChoice> {
  if (value === undefined || !value.toLowerCase().endsWith('.json')) return mapChoice(value);
  let text: string;
  try {
    text = await readFile(value, 'utf8');
  } catch (error) {
    throw new Error(`map file ${value} cannot be read (${(error as Error).message})`, { cause: error });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new Error(`map file ${value} is not valid JSON (${(error as Error).message})`, { cause: error });
  }
  const parsed = v.safeParse(MapFile, json);
  if (!parsed.success) throw new Error(`map file ${value} must be an object of canonical bone → bone name: ${v.summarize(parsed.issues)}`);
  return parsed.output;
}
