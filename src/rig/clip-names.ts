/**
 * Which of a file's clips plays each animation state, read from the clips' names the way exporters
 * and packs write them. Pure: names in, names out. The world's player and the crowd both read a
 * file's clips through here, and the command-line tools print the same map.
 *
 * A clip name is read in three steps:
 * 1. **Exporter decoration goes.** Blender writes `Object|Action` and repeats the armature
 *    (`Armature|Armature|walk_Armature`, `CharacterArmature|Idle`, `SpiderArmature|Spider_Death`);
 *    Mixamo's FBX take is `mixamo.com` (Blender: `Armature|mixamo.com|Layer0`); Unity and Meshy add
 *    `|baselayer`. The last `|` part that is not an armature, a layer or a take is the name, and
 *    `armature` words inside it go too.
 * 2. **Words, then affixes.** Camel case and digits split into words (`ZombieIdle` → zombie idle,
 *    `Idle2` → idle 2); Unreal's asset prefixes (`A_`, `AS_`, `Anim_`, `MM_`), VRM animation's `VRMA_`,
 *    numbers, variant letters (`Walking_A`) and words that change nothing about the motion (`loop`,
 *    `cycle`, `in place`, `neutral`, `unarmed`, `man` …) go; `forward`/`front`/`f` read `fwd`.
 *    A first word every clip of the file shares (a pack's character: `Man_Walk`, `ZombieIdle`) goes.
 * 3. **Phrases per state, best first** ({@link CLIP_STATE_NAMES}): what is left must be one of them
 *    exactly, so `Walk_Back`, `Walk_Carry` or `Sword_Idle` are not the walk or the idle.
 */

/** The animation states Cairn's players and crowds ask for. */
export const CLIP_STATES = ['idle', 'walk', 'run', 'jump', 'swim', 'swim_fast', 'dance', 'wave', 'cheer'] as const;
export type ClipState = (typeof CLIP_STATES)[number];

/**
 * Phrases a clip's words are matched against, per state, best first (written as a person would;
 * they are read through the same steps as clip names). Each library clip's name (`walk_fwd`,
 * `swim_tread` …) reads as a phrase of its own state only.
 */
export const CLIP_STATE_NAMES: Readonly<Record<ClipState, readonly string[]>> = {
  idle: ['idle', 'breathing idle', 'standing idle', 'idle standing', 'stand', 'standing', 'rest'],
  walk: ['walk', 'walk fwd', 'walking', 'walking fwd'],
  run: ['run', 'run fwd', 'running', 'running fwd', 'jog', 'jog fwd', 'jogging', 'sprint', 'sprint fwd', 'sprinting'],
  jump: ['jump', 'jump up', 'jump start', 'jumping', 'standing jump', 'jump idle'],
  swim: ['swim tread', 'tread', 'treading', 'treading water', 'tread water', 'swim idle', 'swim tread water', 'swim'],
  // Not a bare "crawl": packs name a crawl on the ground so (Quaternius's ZombieCrawl).
  swim_fast: ['swim freestyle', 'swim fwd', 'swim fast', 'freestyle', 'front crawl', 'swimming', 'swimming fwd'],
  dance: ['dance', 'dancing'],
  wave: ['wave', 'waving', 'wave hand', 'hand wave'],
  cheer: ['cheer', 'cheering', 'celebrate', 'celebration', 'victory'],
};

/** `|` parts that are exporter decoration, never the clip's name. */
const DECORATION_PART =
  /^([a-z]*armature(\.\d+)?|rig|skeleton|root|scene|take|take ?\d+|layer ?\d*|base ?layer|mixamo\.com|action|default|animation|anim|clip|\d+)$/i;

/** Words that say nothing about which motion a clip is. */
const FILLER = new Set([
  'armature',
  'loop',
  'looped',
  'looping',
  'cycle',
  'inplace',
  'ip',
  'rm',
  'anim',
  'animation',
  'neutral',
  'basic',
  'normal',
  'regular',
  'standard',
  'simple',
  'default',
  'base',
  'unarmed',
  'man',
  'woman',
  'male',
  'female',
  'a',
  'b',
  'c',
  'd',
]);

/** First words that are an engine's or a format's asset prefix (Unreal `A_`/`AS_`/`MM_`, VRM animation `VRMA_`). */
const PREFIXES = new Set(['a', 'as', 'anim', 'mm', 'mf', 'vrma']);

/** Words that read as another: `forward`, `front`, `f` are all `fwd`. */
const SYNONYM: Readonly<Record<string, string>> = { forward: 'fwd', front: 'fwd', f: 'fwd', forwards: 'fwd' };

/** Splits a name into lower-case words: separators, camel case and digits (`ZombieIdle2` → zombie idle 2). */
export function clipWords(name: string): string[] {
  return name
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .replace(/([a-zA-Z])(\d)/g, '$1 $2')
    .replace(/(\d)([a-zA-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

/**
 * The clip's name without exporter decoration (step 1): the last `|` part that is not an armature,
 * a layer or a take, without `armature` words; '' when nothing is left (`mixamo.com`, `Take 001`,
 * `Armature|mixamo.com|Layer0`: a placeholder, no name at all).
 */
export function clipBaseName(name: string): string {
  const parts = name
    .split('|')
    .map((part) => part.trim())
    .filter((part) => part && !DECORATION_PART.test(part));
  const last = parts.at(-1) ?? '';
  return clipWords(last)
    .filter((word) => word !== 'armature')
    .join(' ');
}

/** True for a clip name that names nothing (an exporter's placeholder: `mixamo.com`, `Take 001`, `Scene`). */
export function isPlaceholderClipName(name: string): boolean {
  return clipBaseName(name) === '';
}

/** The words a clip name is matched by (steps 1 and 2, without the shared first word). */
export function clipCoreWords(name: string): string[] {
  const words = clipBaseName(name).split(' ').filter(Boolean);
  if (words.length > 1 && PREFIXES.has(words[0]!)) words.shift();
  return words.map((word) => SYNONYM[word] ?? word).filter((word) => !FILLER.has(word) && !/^\d+$/.test(word));
}

/** A phrase of {@link CLIP_STATE_NAMES} (or a caller's) as the matcher compares it. */
function phraseKey(phrase: string): string {
  return clipCoreWords(phrase).join(' ');
}

/**
 * The file's clip for each state it has one for (steps 1–3). `extraNames` (per state, tried before
 * the built-in phrases) are phrases or exact clip names a studio uses. A clip serves one state at
 * most; states come in {@link CLIP_STATES} order, so `states` picks which are asked for.
 */
export function matchClipStates<S extends ClipState>(
  clipNames: readonly string[],
  states?: readonly S[],
  extraNames: Partial<Record<S, readonly string[]>> = {},
): Partial<Record<S, string>> {
  const cores = clipNames.map(clipCoreWords);
  // The first word every clip shares (two or more, each with something after it): a pack's character name.
  const first = cores[0]?.[0];
  if (cores.length > 1 && first && cores.every((words) => words.length > 1 && words[0] === first)) for (const words of cores) words.shift();
  const keys = cores.map((words) => words.join(' '));
  const used = new Set<number>();
  const found: Partial<Record<S, string>> = {};
  // Without a list: every state (S is then ClipState itself, its default).
  for (const state of states ?? (CLIP_STATES as readonly ClipState[] as readonly S[])) {
    const extra = extraNames[state] ?? [];
    // An exact clip name given by the caller wins, then its phrases, then the built-in ones.
    let pick = clipNames.findIndex((name, i) => !used.has(i) && extra.includes(name));
    for (const phrase of [...extra, ...CLIP_STATE_NAMES[state]]) {
      if (pick >= 0) break;
      const key = phraseKey(phrase);
      if (!key) continue;
      // The plainest of the clips that read the same (`Walk` before `Walk_Loop`), then the file's order.
      let best = -1;
      keys.forEach((k, i) => {
        if (k !== key || used.has(i)) return;
        if (best < 0 || clipWords(clipNames[i]!).length < clipWords(clipNames[best]!).length) best = i;
      });
      pick = best;
    }
    if (pick >= 0) {
      found[state] = clipNames[pick]!;
      used.add(pick);
    }
  }
  return found;
}

/**
 * The map as a person reads it: "idle ← Idle, walk ← Walking; not in the file: swim, swim_fast".
 * `from` labels where a state's clip comes from when it is not the file (`library`, a borrowed state).
 */
export function formatClipStates<S extends string>(
  states: readonly S[],
  clips: Partial<Record<S, string>>,
  from: Partial<Record<S, string>> = {},
): string {
  const mapped = states.filter((state) => clips[state] !== undefined);
  const missing = states.filter((state) => clips[state] === undefined);
  const parts = mapped.map((state) => `${state} ← ${clips[state]}${from[state] ? ` (${from[state]})` : ''}`);
  return `${parts.join(', ') || 'no state has a clip'}${missing.length ? `; no clip for ${missing.join(', ')}` : ''}`;
}
