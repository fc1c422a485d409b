import * as v from 'valibot';

/**
 * Who a player is, as other players see them: a display name and a look (Cairn's humanoid in one
 * of its variants, or a character file by URL). Sent as text once per join and per change — never
 * per frame — and checked here by the same rules on both sides: the relay refuses what does not
 * pass before storing or forwarding it, and receivers check again. Shared with the server, so it
 * imports nothing but valibot.
 *
 * Client → relay room or world cell: `{ "type": "profile", "name": "Ada", "look": {…} }`.
 * Relay → client: `{ "type": "profiles", "peers": [{ "id": 7, "name": "Ada", "look": {…} }, …] }`,
 * every other player's profile to a socket that joins (as many messages as fit under
 * {@link MAX_PROFILES_CHARS}), and one player's to everyone else whenever it changes.
 */

/** Most characters (code points, after trimming) of a display name. */
export const MAX_NAME_CHARS = 24;
/** Longest character-file URL (as the URL parser writes it). */
export const MAX_MODEL_URL_CHARS = 512;
/** Longest `profile` text a relay reads; anything longer is refused unparsed. */
export const MAX_PROFILE_CHARS = 1024;
/** Longest `profiles` message a relay sends (the client's control-text limit). */
export const MAX_PROFILES_CHARS = 2048;

/**
 * How many variants of each part Cairn's humanoid has (src/rig/humanoid-variants.ts holds the
 * tables; a unit test keeps both in step): build (height and width), skin tone, hair colour,
 * outfit (shirt, trousers and shoes).
 */
export const HUMANOID_VARIANTS = {
  /** Builds (height and width). */
  build: 5,
  /** Skin tones. */
  skin: 6,
  /** Hair colours. */
  hair: 8,
  /** Outfits (shirt, trousers and shoes). */
  outfit: 12,
} as const;

/** Cairn's humanoid in one variant: an index per part (see {@link HUMANOID_VARIANTS}). */
export interface HumanoidLook {
  /** Discriminates the look: Cairn's humanoid. */
  kind: 'humanoid';
  /** Build (height and width), 0 ≤ build < {@link HUMANOID_VARIANTS}.build. */
  build: number;
  /** Skin tone, 0 ≤ skin < {@link HUMANOID_VARIANTS}.skin. */
  skin: number;
  /** Hair colour, 0 ≤ hair < {@link HUMANOID_VARIANTS}.hair. */
  hair: number;
  /** Outfit (shirt, trousers and shoes), 0 ≤ outfit < {@link HUMANOID_VARIANTS}.outfit. */
  outfit: number;
}

/** A character file (glTF, GLB, VRM) every visitor fetches from `url`. */
export interface ModelLook {
  /** Discriminates the look: a character file. */
  kind: 'model';
  /** Where the file is: an http(s) URL every visitor can fetch. */
  url: string;
}

/** How a player looks. */
export type AvatarLook = HumanoidLook | ModelLook;

/** A player's profile: display name and look. */
export interface Profile {
  /** Display name, checked by {@link checkDisplayName}. */
  name: string;
  /** How the player looks. */
  look: AvatarLook;
}

/** A profile with the id the relay stamps on that player's frames. */
export interface PeerProfile extends Profile {
  /** The id the relay stamps on the player's frames. */
  id: number;
}

/** The outcome of checking untrusted input: the value, or the problem in words (never thrown). */
export type Checked<T> =
  | {
      /** The input passed the checks. */
      ok: true;
      /** What it held. */
      value: T;
    }
  | {
      /** The input was refused. */
      ok: false;
      /** Why, in words. */
      problem: string;
    };

/**
 * Characters a display name may not hold, whatever the script: controls (C0, C1, DEL), format
 * characters (bidi embeddings, overrides and isolates, marks such as U+200E/U+200F/U+061C, zero
 * widths, the BOM, soft hyphens, tags), line and paragraph separators, private use, surrogates,
 * unassigned code points. A zero-width joiner between two pictographs (🧑‍🚀) is allowed.
 */
const FORBIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cs}\p{Cn}]/u;
const EMOJI_JOINER = /(?<=\p{Extended_Pictographic}\uFE0F?)\u200D(?=\p{Extended_Pictographic})/gu;
/** Runs of combining marks longer than this are refused (stacked diacritics draw over other labels). */
const MAX_MARKS = 3;
const MARK_RUN = new RegExp(`\\p{M}{${MAX_MARKS + 1},}`, 'u');
/** Tabs, line breaks and every kind of space, collapsed to one U+0020 (not U+FEFF, which is refused). */
const SPACES = /[\t\n\v\f\r \u00A0\u1680\u2000-\u200A\u202F\u205F\u3000]+/gu;

/**
 * Checks a display name. Sanitises only what cannot mislead: Unicode NFC, any run of spaces becomes
 * one space, and spaces at either end go. Refuses (with the reason) everything else that is wrong:
 * not a string, empty, longer than {@link MAX_NAME_CHARS} characters, a forbidden character (a bidi
 * override could make a name read as another, a control could break a label), or more than
 * `MAX_MARKS` combining marks in a row. The relay refuses such a profile and tells the sender
 * why; it never forwards a name it altered beyond spacing.
 */
export function checkDisplayName(raw: unknown): Checked<string> {
  if (typeof raw !== 'string') return { ok: false, problem: 'the name is not text' };
  if (raw.length > MAX_NAME_CHARS * 8) return { ok: false, problem: `the name is longer than ${MAX_NAME_CHARS} characters` };
  const collapsed = raw.normalize('NFC').replace(SPACES, ' ');
  const name = collapsed.slice(collapsed.startsWith(' ') ? 1 : 0, collapsed.endsWith(' ') ? -1 : undefined);
  if (name.length === 0) return { ok: false, problem: 'the name is empty' };
  const length = [...name].length;
  if (length > MAX_NAME_CHARS) return { ok: false, problem: `the name has ${length} characters (at most ${MAX_NAME_CHARS})` };
  const bad = FORBIDDEN.exec(name.replace(EMOJI_JOINER, ''));
  if (bad) {
    const code = bad[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
    return { ok: false, problem: `the name holds U+${code}, a control, format or unassigned character` };
  }
  if (MARK_RUN.test(name)) return { ok: false, problem: `the name stacks more than ${MAX_MARKS} combining marks on one letter` };
  return { ok: true, value: name };
}

/** Hosts a plain-http character file may come from (a developer's own machine); everything else needs https. */
const LOOPBACK = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|localhost|\[::1\])$/;

/**
 * Checks a character-file URL: absolute, https (plain http only from a loopback host), no user
 * name or password, at most {@link MAX_MODEL_URL_CHARS} characters as the URL parser writes it.
 * Returns that canonical form. Every visitor's browser fetches it (with no cookies and no
 * referrer), so nothing else is accepted: no `data:`, `blob:`, `file:` or `javascript:` URL.
 */
export function checkModelUrl(raw: unknown): Checked<string> {
  if (typeof raw !== 'string') return { ok: false, problem: 'the model URL is not text' };
  if (raw.length > MAX_MODEL_URL_CHARS) return { ok: false, problem: `the model URL is longer than ${MAX_MODEL_URL_CHARS} characters` };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, problem: 'the model URL is not an absolute URL' };
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK.test(url.hostname)))
    return { ok: false, problem: `a model URL must be https (got ${url.protocol.slice(0, 12)})` };
  if (url.username || url.password) return { ok: false, problem: 'a model URL may not hold a user name or password' };
  const href = url.href;
  if (href.length > MAX_MODEL_URL_CHARS) return { ok: false, problem: `the model URL is longer than ${MAX_MODEL_URL_CHARS} characters` };
  return { ok: true, value: href };
}

const part = (count: number, name: string) =>
  v.pipe(
    v.number(`${name} is not a number`),
    v.integer(`${name} is not a whole number`),
    v.minValue(0, `${name} below 0`),
    v.maxValue(count - 1, `${name} above ${count - 1}`),
  );

const HumanoidLookSchema = v.strictObject(
  {
    kind: v.literal('humanoid'),
    build: part(HUMANOID_VARIANTS.build, 'build'),
    skin: part(HUMANOID_VARIANTS.skin, 'skin'),
    hair: part(HUMANOID_VARIANTS.hair, 'hair'),
    outfit: part(HUMANOID_VARIANTS.outfit, 'outfit'),
  },
  'a humanoid look has kind, build, skin, hair and outfit, nothing else',
);

const ModelLookSchema = v.strictObject(
  { kind: v.literal('model'), url: v.string('the model URL is not text') },
  'a model look has kind and url, nothing else',
);

const LookSchema = v.variant('kind', [HumanoidLookSchema, ModelLookSchema], 'the look is neither kind "humanoid" nor kind "model"');

/** Checks a look (see {@link AvatarLook}); a model URL comes back in its canonical form. */
export function checkLook(raw: unknown): Checked<AvatarLook> {
  const parsed = v.safeParse(LookSchema, raw);
  if (!parsed.success) return { ok: false, problem: parsed.issues[0].message };
  const look = parsed.output;
  if (look.kind === 'humanoid')
    return { ok: true, value: { kind: 'humanoid', build: look.build, skin: look.skin, hair: look.hair, outfit: look.outfit } };
  const url = checkModelUrl(look.url);
  return url.ok ? { ok: true, value: { kind: 'model', url: url.value } } : url;
}

/** Checks a name and a look together: the profile in its canonical form, or the first problem. */
export function checkProfile(raw: { name?: unknown; look?: unknown }): Checked<Profile> {
  const name = checkDisplayName(raw.name);
  if (!name.ok) return name;
  const look = checkLook(raw.look);
  if (!look.ok) return look;
  return { ok: true, value: { name: name.value, look: look.value } };
}

/** The text a client sends to publish its profile (checked first: throws on a profile the relay would refuse). */
export function profileCommand(profile: Profile): string {
  const checked = checkProfile(profile);
  if (!checked.ok) throw new RangeError(`profileCommand: ${checked.problem}`);
  return JSON.stringify({ type: 'profile', name: checked.value.name, look: checked.value.look });
}

/**
 * Reads a client's text as a profile command: null when it is not one (another command, not JSON),
 * otherwise the checked profile or why it was refused.
 */
export function readProfileCommand(text: string): Checked<Profile> | null {
  if (!text.startsWith('{') || !text.includes('"profile"')) return null;
  if (text.length > MAX_PROFILE_CHARS)
    return { ok: false, problem: `profile text of ${text.length} characters (at most ${MAX_PROFILE_CHARS})` };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null || (value as { type?: unknown }).type !== 'profile') return null;
  const { type: _type, ...rest } = value as Record<string, unknown>;
  const extra = Object.keys(rest).find((key) => key !== 'name' && key !== 'look');
  if (extra !== undefined) return { ok: false, problem: `a profile has name and look, not "${extra.slice(0, 20)}"` };
  return checkProfile(rest);
}

/** Relay → client: profiles of other players (see the module comment). Checked again on arrival. */
export const ProfilesSchema = v.object({
  /** Discriminates the message. */
  type: v.literal('profiles'),
  /** Up to 64 players' profiles. */
  peers: v.pipe(
    v.array(
      v.object({
        /** The id the relay stamps on the player's frames. */
        id: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(0xffffffff)),
        /** Display name (checked again on arrival). */
        name: v.string(),
        /** Look (checked again on arrival). */
        look: v.unknown(),
      }),
    ),
    v.maxLength(64),
  ),
});
/** A `profiles` message as its schema accepts it (each entry is checked again by {@link readProfiles}). */
export type ProfilesMessage = v.InferOutput<typeof ProfilesSchema>;

/**
 * Packs profiles into as few `profiles` texts as fit under {@link MAX_PROFILES_CHARS} each (a
 * joiner's greeting), in order.
 */
export function packProfiles(peers: readonly PeerProfile[]): string[] {
  const texts: string[] = [];
  let batch: string[] = [];
  let size = 0;
  const head = '{"type":"profiles","peers":[';
  for (const peer of peers) {
    const entry = JSON.stringify({ id: peer.id, name: peer.name, look: peer.look });
    if (batch.length > 0 && (head.length + size + batch.length + entry.length + 2 > MAX_PROFILES_CHARS || batch.length >= 64)) {
      texts.push(`${head}${batch.join(',')}]}`);
      batch = [];
      size = 0;
    }
    batch.push(entry);
    size += entry.length;
  }
  if (batch.length) texts.push(`${head}${batch.join(',')}]}`);
  return texts;
}

/** The profiles of a `profiles` message that pass the checks, and how many did not. */
export function readProfiles(message: ProfilesMessage): {
  /** The profiles that passed, in the message's order. */
  peers: PeerProfile[];
  /** Entries that failed the checks. */
  refused: number;
} {
  const peers: PeerProfile[] = [];
  let refused = 0;
  for (const entry of message.peers) {
    const checked = checkProfile(entry);
    if (checked.ok) peers.push({ id: entry.id, ...checked.value });
    else refused++;
  }
  return { peers, refused };
}

/** Two looks are the same character (the crowd draws them with one template). */
export function lookKey(look: AvatarLook): string {
  return look.kind === 'model' ? `model:${look.url}` : `humanoid:${look.build}.${look.skin}.${look.hair}.${look.outfit}`;
}
