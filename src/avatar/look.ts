/**
 * How the local player looks and is called, as other players see it: the choice (a display name,
 * a humanoid variant or a character file by URL), read from a page's parameters or storage, and
 * the look actually shared — a character file only once it has loaded here, the player's humanoid
 * variant before and if it fails (others would be shown a file this browser cannot even draw).
 * Pure: no DOM.
 */
import {
  checkDisplayName,
  checkModelUrl,
  HUMANOID_VARIANTS,
  MAX_MODEL_URL_CHARS,
  type AvatarLook,
  type Checked,
  type Profile,
} from '../net/protocol/profile.ts';
import { humanoidVariantFromSeed, type HumanoidVariant } from '../rig/humanoid-variants.ts';

/** What the player chose: a name, a humanoid variant, and optionally a character file that replaces it. */
export interface LookChoice {
  /** The display name over the player. */
  name: string;
  /** The humanoid variant (also kept while a file is drawn, for the players who draw the humanoid). */
  variant: HumanoidVariant;
  /**
   * An absolute http(s) URL of a glTF/GLB/VRM/FBX file, or null for the humanoid. Drawn here
   * whatever its scheme; shared only when others may fetch it (`checkModelUrl`: https, or plain
   * http from this machine).
   */
  model: string | null;
}

/** A default display name from the player's stored seed ("Visitor 4821"): different per browser, the same after a reload. */
export function defaultName(seed: number): string {
  return `Visitor ${1000 + ((seed >>> 0) % 9000)}`;
}

/** The default choice for a browser with seed `seed`: its name and its seeded humanoid variant. */
export function defaultChoice(seed: number): LookChoice {
  return { name: defaultName(seed), variant: humanoidVariantFromSeed(seed), model: null };
}

/**
 * Reads a `?look=` value: `B.S.H.O` (or `humanoid:B.S.H.O`, the four variant indices),
 * `seed:N` (the variant seeded from N), or a character file's URL (resolved against `base`).
 */
export function parseLookParam(
  value: string,
  base: string,
): Checked<
  | {
      /** The humanoid variant named. */
      variant: HumanoidVariant;
    }
  | {
      /** The character file's absolute URL. */
      model: string;
    }
> {
  const text = value.trim();
  const parts = /^(?:humanoid:)?(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (parts) {
    const [build, skin, hair, outfit] = parts.slice(1).map(Number) as [number, number, number, number];
    if (
      build >= HUMANOID_VARIANTS.build ||
      skin >= HUMANOID_VARIANTS.skin ||
      hair >= HUMANOID_VARIANTS.hair ||
      outfit >= HUMANOID_VARIANTS.outfit
    )
      return {
        ok: false,
        problem: `a humanoid look is build.skin.hair.outfit, each below ${HUMANOID_VARIANTS.build}.${HUMANOID_VARIANTS.skin}.${HUMANOID_VARIANTS.hair}.${HUMANOID_VARIANTS.outfit}`,
      };
    return { ok: true, value: { variant: { build, skin, hair, outfit } } };
  }
  const seed = /^seed:(\d{1,10})$/.exec(text);
  if (seed) return { ok: true, value: { variant: humanoidVariantFromSeed(Number(seed[1])) } };
  let url: URL;
  try {
    url = new URL(text, base);
  } catch {
    return { ok: false, problem: `"${text.slice(0, 40)}" is neither a humanoid look (build.skin.hair.outfit, seed:N) nor a URL` };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    return { ok: false, problem: `a character file's URL must be http or https (got ${url.protocol.slice(0, 12)})` };
  if (url.href.length > MAX_MODEL_URL_CHARS)
    return { ok: false, problem: `the model URL is longer than ${MAX_MODEL_URL_CHARS} characters` };
  return { ok: true, value: { model: url.href } };
}

/** Why the file of `choice` is not sent to other players (its URL is not one they may fetch), or null. */
export function unsharedReason(choice: LookChoice): string | null {
  if (choice.model === null) return null;
  const checked = checkModelUrl(choice.model);
  return checked.ok ? null : `others see your humanoid: ${checked.problem}`;
}

/** A stored choice, checked (a storage entry is as untrusted as anything a page did not write just now), or null. */
export function readStoredChoice(raw: unknown): LookChoice | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const { name, variant, model } = raw as Record<string, unknown>;
  const checkedName = checkDisplayName(name);
  if (!checkedName.ok || typeof variant !== 'object' || variant === null) return null;
  const v = variant as Record<string, unknown>;
  const parsed = parseLookParam(`${String(v.build)}.${String(v.skin)}.${String(v.hair)}.${String(v.outfit)}`, 'https://cairn.invalid/');
  if (!parsed.ok || !('variant' in parsed.value)) return null;
  if (model === null || model === undefined) return { name: checkedName.value, variant: parsed.value.variant, model: null };
  const file = typeof model === 'string' ? parseLookParam(model, 'https://cairn.invalid/') : null;
  if (!file?.ok || !('model' in file.value)) return null;
  return { name: checkedName.value, variant: parsed.value.variant, model: file.value.model };
}

/** What the avatar draws now, as far as sharing is concerned. */
export interface DrawnCharacter {
  /** The URL of the character file drawn, or null for the humanoid. */
  modelSource: string | null;
  /** The humanoid variant drawn (also under a file, for the players who draw the humanoid). */
  variant: HumanoidVariant;
}

/**
 * The profile to share for `choice` given what is drawn: the file when it is the one drawn here
 * and others may fetch it, otherwise the humanoid variant (while the file loads, when it was
 * refused, when its URL is not one to send).
 */
export function sharedProfile(choice: LookChoice, drawn: DrawnCharacter): Profile {
  const url = choice.model !== null && drawn.modelSource === choice.model ? checkModelUrl(choice.model) : null;
  const look: AvatarLook = url?.ok ? { kind: 'model', url: url.value } : { kind: 'humanoid', ...drawn.variant };
  return { name: choice.name, look };
}
