import { parseAvatarHeight } from '../../src/avatar/avatar-height.ts';
import { avatarNotice } from '../../src/avatar/avatar-report.ts';
import { defaultChoice, parseLookParam, readStoredChoice, sharedProfile, unsharedReason, type LookChoice } from '../../src/avatar/look.ts';
import { LookPanel } from '../../src/avatar/look-panel.ts';
import { PlayerAvatar } from '../../src/avatar/player-avatar.ts';
import { Disposers } from '../../src/core/disposers.ts';
import { isTyping } from '../../src/core/typing.ts';
import { checkDisplayName, lookKey, type Profile } from '../../src/net/protocol/profile.ts';
import { showNotice, worldDock, type World, type WorldPlugin } from '../../src/world/index.ts';

/** Where the player's choice is kept between visits, and the seed of its defaults. */
const STORAGE_KEY = 'cairn.look';
const SEED_KEY = 'cairn.look.seed';

/** How the player looks and is called, as `cairn.stats.look` publishes it. */
export interface LookPageStats {
  /** The chosen name and look (`lookKey`: `humanoid:B.S.H.O` or `model:URL`). */
  name: string;
  chosen: string;
  /** The look other players are sent (the humanoid while a file loads, or when it failed here). */
  shared: string;
  /** Why the last change was not taken, or null. */
  problem: string | null;
}

declare module '../../src/world/cairn-global.ts' {
  interface CairnStats {
    /** The player's name and look (app/world-plugins/avatar.ts). */
    look?: LookPageStats;
  }
  interface CairnGlobal {
    /** The Look panel (L). */
    lookPanel?: LookPanel;
  }
}

/**
 * The player's character and how others see it. Cairn's humanoid in the player's variant (build,
 * skin, hair, outfit: a different default per browser, seeded from a random number kept in
 * localStorage), or a character file (glTF, GLB, VRM, FBX by URL: its clips where their names
 * match, the library retargeted onto it for the rest), sized to a person when its file's size is
 * implausible (`&avatarHeight=auto|file|1.8`). The humanoid walks while the file loads, and stays
 * (a notice says why) when the file is refused.
 *
 * The Look panel (L, or its "Look (L)" button among the tools top right) edits the name, the
 * variant and the file; the toggle and the panel sit in the page's dock (src/world/dock.ts) with
 * the other tools and panels, so nothing overlaps. The choice is kept in localStorage. `?name=…`
 * and `?look=B.S.H.O|seed:N|URL` (or `?avatar=URL`) set them for this visit. Every other player is
 * sent the name and the look once per join and per change (the net session's profile): a file
 * only once it has loaded here. Publishes the `avatar` service, `cairn.stats.avatar` and
 * `cairn.stats.look`.
 */
export const plugin: WorldPlugin = { name: 'avatar', provides: ['avatar'], install };

function install(world: World): () => void {
  const undo = new Disposers();
  const params = new URLSearchParams(location.search);
  const height = parseAvatarHeight(params.get('avatarHeight'));
  if (!height.ok) showNotice({ level: 'warn', title: 'Avatar height ignored', detail: height.problem });
  const problems: string[] = [];
  let choice = initialChoice(params, problems);
  const avatar = new PlayerAvatar({ height: height.ok ? height.height : 'auto', variant: choice.variant });
  world.cairn.stats.avatar = avatar.stats;
  const look: LookPageStats = { name: choice.name, chosen: chosenKey(choice), shared: '', problem: problems[0] ?? null };
  world.cairn.stats.look = look;
  for (const problem of problems) showNotice({ level: 'warn', title: 'Look not taken from the address', detail: problem });

  const dock = worldDock();
  const panel = new LookPanel({ choice, toolbar: dock.tools, panels: dock.panels });
  world.cairn.lookPanel = panel;
  undo.add(() => {
    panel.dispose();
    delete world.cairn.lookPanel;
  });

  // The profile others see: sent again whenever it changes (and the session resends it on reconnects).
  let sent = '';
  const share = (): void => {
    const profile: Profile = sharedProfile(choice, avatar);
    const key = `${profile.name}\n${lookKey(profile.look)}`;
    look.shared = lookKey(profile.look);
    const session = world.services.get('net');
    if (!session || key === sent) return;
    const problem = session.setProfile(profile);
    if (problem) look.problem = problem;
    else sent = key;
  };
  undo.add(
    world.services.subscribe('net', () => {
      sent = '';
      share();
    }),
  );

  const describe = (): void => {
    const stats = avatar.stats;
    if (choice.model && stats.status === 'loading')
      panel.setStatus(`Loading ${fileName(choice.model)}… others see your humanoid meanwhile.`);
    else if (choice.model && avatar.modelSource !== choice.model)
      panel.setStatus(`${fileName(choice.model)} was refused (${stats.reason ?? 'failed'}): others see your humanoid.`, true);
    else if (unsharedReason(choice)) panel.setStatus(`${fileName(choice.model!)} is drawn here; ${unsharedReason(choice)}.`, true);
    else panel.setStatus(`Others see ${choice.model ? fileName(choice.model) : 'your humanoid'} named “${choice.name}”.`);
  };

  undo.add(
    avatar.on('status', ({ stats, notes }) => {
      world.cairn.stats.avatar = stats;
      const notice = avatarNotice(stats, notes);
      if (notice) showNotice(notice);
      share();
      describe();
    }),
  );

  const apply = (next: LookChoice): void => {
    const modelChanged = next.model !== choice.model;
    const variantChanged = JSON.stringify(next.variant) !== JSON.stringify(choice.variant);
    choice = next;
    look.name = choice.name;
    look.chosen = chosenKey(choice);
    look.problem = null;
    if (choice.model && modelChanged) void avatar.load(choice.model);
    else if (!choice.model && (modelChanged || variantChanged)) avatar.setVariant(choice.variant);
    share();
    describe();
  };

  undo.add(
    panel.on('change', (next) => {
      // A file typed in the panel: resolved against this page, and checked as the relay checks it.
      let model: string | null = null;
      if (next.model !== null) {
        const parsed = parseLookParam(next.model, location.href);
        if (!parsed.ok || !('model' in parsed.value)) {
          const problem = parsed.ok ? 'that is a humanoid look, not a file' : parsed.problem;
          look.problem = problem;
          panel.setStatus(`File not worn: ${problem}.`, true);
          return;
        }
        model = parsed.value.model;
      }
      apply({ ...next, model });
      store(choice);
    }),
  );

  world.player.setCharacter(avatar);
  undo.add(world.services.provide('avatar', avatar));
  if (choice.model) void avatar.load(choice.model);
  share();
  describe();

  const onKey = (event: KeyboardEvent): void => {
    if (event.code !== 'KeyL' || event.repeat || event.ctrlKey || event.metaKey || event.altKey || isTyping(event)) return;
    panel.toggle();
  };
  window.addEventListener('keydown', onKey);
  undo.add(() => window.removeEventListener('keydown', onKey));
  return () => undo.dispose();
}

/** The choice for this visit: storage (or this browser's seeded default), then the address's `?name`, `?look`, `?avatar`. */
function initialChoice(params: URLSearchParams, problems: string[]): LookChoice {
  let choice = readStoredChoice(readJson(STORAGE_KEY)) ?? defaultChoice(browserSeed());
  const name = params.get('name');
  if (name !== null) {
    const checked = checkDisplayName(name);
    if (checked.ok) choice = { ...choice, name: checked.value };
    else problems.push(`?name: ${checked.problem}`);
  }
  for (const key of ['look', 'avatar'] as const) {
    const value = params.get(key);
    if (value === null) continue;
    const parsed = parseLookParam(value, location.href);
    if (!parsed.ok) {
      problems.push(`?${key}: ${parsed.problem}`);
      continue;
    }
    choice = 'model' in parsed.value ? { ...choice, model: parsed.value.model } : { ...choice, variant: parsed.value.variant, model: null };
  }
  return choice;
}

function chosenKey(choice: LookChoice): string {
  return lookKey(choice.model ? { kind: 'model', url: choice.model } : { kind: 'humanoid', ...choice.variant });
}

function fileName(url: string): string {
  return decodeURIComponent(url.split(/[?#]/)[0]!.split('/').pop() || url);
}

/** A random seed kept per browser (its default name and humanoid), made on the first visit. */
function browserSeed(): number {
  const stored = Number(readJson(SEED_KEY));
  if (Number.isInteger(stored) && stored > 0) return stored;
  const seed = crypto.getRandomValues(new Uint32Array(1))[0]! || 1;
  try {
    localStorage.setItem(SEED_KEY, String(seed));
  } catch {
    // storage off (private mode): a new default each visit
  }
  return seed;
}

function readJson(key: string): unknown {
  try {
    const text = localStorage.getItem(key);
    return text === null ? null : (JSON.parse(text) as unknown);
  } catch {
    return null;
  }
}

function store(choice: LookChoice): void {
  try {
    localStorage.setItem(STORAGE_KEY, JSON.stringify(choice));
  } catch {
    // storage off: the choice lasts this visit
  }
}
