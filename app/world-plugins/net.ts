import { BroadcastTransport } from '../../src/net/transport/broadcast-transport.ts';
import { FallbackTransport, relayAttempt } from '../../src/net/transport/fallback-transport.ts';
import { avatarRoomPath, relayUrl } from '../../src/net/transport/open-transport.ts';
import type { FrameTransport } from '../../src/net/transport/transport.ts';
import { roomNameIssue } from '../../src/net/protocol/room-name.ts';
import { NetSession, type NetPageStats, type NetStats } from '../../src/net/net-session.ts';
import type { LocalPublisherOptions } from '../../src/net/peers/local-publisher.ts';
import type { WorldDirectory } from '../../src/net/protocol/world.ts';
import { WorldTransport, worldAttempt } from '../../src/net/world/world-transport.ts';
import { tabSession } from '../../src/net/tab-session.ts';
import { HumanoidPeerView } from '../../src/net/view/humanoid-peer-view.ts';
import { CrowdPeerView } from '../../src/net/view/crowd-peer-view.ts';
import { NameTagView } from '../../src/net/view/name-tags.ts';
import type { RemotePeerView } from '../../src/net/view/remote-peer-view.ts';
import { Disposers } from '../../src/core/disposers.ts';
import { createPlayerState, showNotice, type World, type WorldPlugin } from '../../src/world/index.ts';

/**
 * How long the page waits for the relay before falling back to the BroadcastChannel (ms). A
 * refused or failed connection falls back at once; this only bounds a connection that hangs.
 */
const RELAY_WAIT_MS = 20_000;

/**
 * Avatar sync in the world.
 * - `?room=NAME`: join relay room NAME on this origin; if no relay answers, fall back to a
 *   BroadcastChannel of the same name (tabs of this browser), say so, keep trying the relay in the
 *   background (jittered backoff up to 15 s) and switch back to it, saying so, once it answers.
 * - no `room`: the relay room `lobby` on this origin (the Worker `npm start` serves), with the
 *   same fallback — so two machines on one `npm start` see each other without any parameter.
 * - `?relay=wss://host` uses the relay at another origin (pages hosted apart from the Worker).
 * - `?world=1`: the open world — spatial cells on this origin's Worker (docs/scale.md); if the
 *   world API does not answer, the BroadcastChannel `world`, say so, keep trying the world in the
 *   background (the same backoff) and switch back to it, saying so, once it answers. `&at=X,Z` starts the
 *   player there (metres), e.g. to meet someone.
 * - `?net=broadcast` forces the channel, `?net=off` turns avatar sync off.
 * - Remote players are drawn by the crowd module's batched renderer (the `crowdRemotes` service: one
 *   draw per piece for all of them, live near / baked far); `?peers=humanoid` draws one low-detail
 *   humanoid per peer instead (also the fallback when the crowd plugin is missing). Each player
 *   wears the look it chose and has its display name above it (the `nameTags` service): the
 *   avatar plugin publishes this player's through `session.setProfile`.
 * The HUD's Net section shows which transport is in use and its state.
 */
export const plugin: WorldPlugin = { name: 'net', provides: ['net', 'netView', 'nameTags'], uses: ['crowdRemotes'], install };

function install(world: World): (() => void) | void {
  const params = new URLSearchParams(location.search);
  if (params.get('net') === 'off') return;
  const undo = new Disposers();
  const room = params.get('room');
  const stats = world.cairn.stats;
  const placeholder: Partial<NetStats> & { fallback: string | null } = { state: 'connecting', fallback: null };
  stats.net = placeholder;
  const removeSection = world.hud?.addSection('net', { title: 'Net', rows: (s) => netRows(s.net) });
  if (removeSection) undo.add(removeSection);
  const open =
    params.get('world') === '1'
      ? startWorld(world, undo)
      : start(world, undo, room, params.get('net') === 'broadcast', params.get('relay'));
  void open.catch((error: Error) => {
    placeholder.state = 'closed';
    placeholder.lastError = error.message;
    showNotice({ level: 'error', title: 'Avatar sync failed to start', detail: error.message });
  });
  return () => undo.dispose();
}

async function start(
  world: World,
  undo: Disposers,
  room: string | null,
  forceBroadcast: boolean,
  relayOrigin: string | null,
): Promise<void> {
  let transport: FrameTransport;
  let fallback: string | null = null;
  const issue = room === null ? null : roomNameIssue(room);
  if (room !== null && issue) {
    fallback = `?room=${room.slice(0, 40)}: ${issue}`;
    showNotice({ level: 'warn', title: 'Bad room name; using this browser only', detail: fallback });
    transport = new BroadcastTransport({ channel: 'lobby' });
  } else if (!forceBroadcast) {
    room ??= 'lobby';
    let target = avatarRoomPath(room);
    // This tab's session (shared with voice), so the welcome's avatar token proves our avatar to our voice socket.
    if (relayOrigin === null) {
      const tab = await tabSession(location.origin, pageSessionStorage());
      if (tab) target += `?session=${encodeURIComponent(tab)}`;
    }
    if (relayOrigin !== null) {
      if (/^wss?:\/\/[^/]+$/.test(relayOrigin)) target = relayOrigin + target;
      else
        showNotice({
          level: 'warn',
          title: 'Ignoring ?relay',
          detail: `"${relayOrigin.slice(0, 60)}" is not a ws:// or wss:// origin such as wss://cairn.example; using this page's origin.`,
        });
    }
    const url = relayUrl(target);
    const channel = room;
    const relay = new FallbackTransport({
      kind: 'relay',
      target: url,
      attempt: relayAttempt(url, {}, RELAY_WAIT_MS),
      fallback: () => new BroadcastTransport({ channel }),
    });
    if (!(await relay.ready())) {
      fallback = relay.fallbackReason;
      showNotice({
        level: 'warn',
        title: 'Avatar relay unreachable: sharing with this browser only',
        detail: `${fallback}.\nOther tabs of this browser with ?room=${room} still see you. Retrying the relay in the background.`,
      });
    }
    transport = relay;
  } else {
    transport = new BroadcastTransport({ channel: room ?? 'lobby' });
  }

  run(world, undo, transport, fallback);
}

/**
 * The open world: cells through the Worker's /api/world; while it does not answer, the
 * BroadcastChannel `world`, retrying the world in the background and switching back when it answers.
 */
async function startWorld(world: World, undo: Disposers): Promise<void> {
  const at = /^(-?\d+(?:\.\d+)?),(-?\d+(?:\.\d+)?)$/.exec(new URLSearchParams(location.search).get('at') ?? '');
  if (at) {
    const half = world.heightmap.worldSize / 2 - 1;
    const x = Math.max(-half, Math.min(half, Number(at[1])));
    const z = Math.max(-half, Math.min(half, Number(at[2])));
    world.player.state = createPlayerState(x, z, world.heightmap);
  }
  const origin = location.origin;
  // This tab's session (shared with voice), so the cells' avatar tokens prove our avatar to our voice socket.
  const tab = await tabSession(origin, pageSessionStorage());
  // Each try enters where the player stands at that moment.
  const attempt = worldAttempt(() => ({ origin, session: tab, start: { x: world.player.state.x, z: world.player.state.z } }));
  const transport = new FallbackTransport({
    kind: 'world',
    target: `${origin}/api/world`,
    attempt,
    fallback: () => new BroadcastTransport({ channel: 'world' }),
  });
  let fallback: string | null = null;
  if (!(await transport.ready())) {
    fallback = transport.fallbackReason;
    showNotice({
      level: 'warn',
      title: 'Open world unreachable: sharing with this browser only',
      detail: `${fallback}.\nOther tabs of this browser with ?world=1 still see you. Retrying the world in the background.`,
    });
  }
  const session = run(world, undo, transport, fallback, { farRateDivisor: 2 });
  const cells = (): WorldTransport | null => (transport.current instanceof WorldTransport ? transport.current : null);
  const population = { players: 0, cells: 0 };
  // The world's figures for the HUD, from whichever world transport is in use (a switch back brings a new one).
  const showCells = (): void => {
    const current = cells();
    if (current) Object.assign(session.stats, { world: current.world, population });
  };
  showCells();
  session.events.on('switched', showCells);
  undo.add(world.onFrame(() => cells()?.setPosition(world.player.state.x, world.player.state.z)));
  // The directory's view of the world, for the HUD (cheap: one small GET every 10 s, only while on the world).
  const poll = async (): Promise<void> => {
    if (!cells()) return;
    try {
      const directory = (await (await fetch('/api/world')).json()) as WorldDirectory;
      population.players = directory.players;
      population.cells = directory.cells.length;
    } catch {
      // the HUD keeps the last figures
    }
  };
  void poll();
  const timer = setInterval(() => void poll(), 10_000);
  undo.add(() => clearInterval(timer));
}

/** The page's sessionStorage, or null where reading it throws (a sandboxed frame). */
function pageSessionStorage(): Storage | null {
  try {
    return sessionStorage;
  } catch {
    return null;
  }
}

function run(
  world: World,
  undo: Disposers,
  transport: FrameTransport,
  fallback: string | null,
  publisher?: LocalPublisherOptions,
): NetSession {
  const view = createView(world);
  // Display names over the remote players, whichever view draws them.
  const tags = new NameTagView({ view, camera: world.camera });
  const session = new NetSession({ transport, view: tags, publisher });
  const published = Object.assign(session.stats, { fallback });
  // A fallen-back page that reaches the relay or the world again: say so (the HUD's transport row follows).
  session.events.on('switched', ({ kind, target }) => {
    if (kind === 'broadcast') return;
    published.fallback = null;
    const title =
      kind === 'world'
        ? 'Open world reached: sharing with everyone nearby again'
        : 'Avatar relay reached: sharing with everyone in the room again';
    showNotice({ level: 'info', title, detail: `Connected to ${target}.` });
  });
  world.cairn.stats.net = published;
  // Leave cleanly when the world goes (the page's pagehide disposes it): the channel gets a leave
  // frame, the relay sees the close and tells the others.
  undo.add(() => session.dispose());
  undo.add(world.services.provide('net', session));
  undo.add(world.services.provide('netView', view));
  undo.add(world.services.provide('nameTags', tags));
  const player = world.player;
  const removeFrame = world.onFrame((dt) => {
    const s = player.state;
    session.setLocalPose({ x: s.x, y: s.y, z: s.z, facing: s.facing, speed: s.speed, state: s.state });
    session.setFocus(s.x, s.z);
    session.update(dt);
    world.cairn.stats.nameTags = tags.stats;
  });
  undo.add(removeFrame);
  return session;
}

/** The remote-player renderer: the crowd's (the default, when its plugin is installed), else a humanoid per peer. */
function createView(world: World): RemotePeerView {
  const remotes = world.services.get('crowdRemotes');
  const choice = new URLSearchParams(location.search).get('peers');
  if (choice !== 'humanoid') {
    if (remotes) return new CrowdPeerView({ remotes });
    showNotice({
      level: 'warn',
      title: 'No crowd renderer: drawing remote players one by one',
      detail: 'The crowd world plugin (the crowdRemotes service) is not installed.',
    });
  }
  return new HumanoidPeerView({ parent: world.scene });
}

function netRows(net: NetPageStats | undefined): Array<{ label: string; value: string; tone?: 'ok' | 'warn' | 'bad' }> {
  if (!net) return [{ label: 'sync', value: 'off' }];
  const kind =
    net.transport === 'relay'
      ? 'relay'
      : net.transport === 'world'
        ? 'world cells'
        : net.transport === 'broadcast'
          ? 'BroadcastChannel (this browser)'
          : '…';
  const tone = net.state === 'open' ? 'ok' : net.state === 'closed' ? 'bad' : 'warn';
  const rows: Array<{ label: string; value: string; tone?: 'ok' | 'warn' | 'bad' }> = [
    { label: 'transport', value: kind, tone: net.fallback ? 'warn' : undefined },
    { label: 'state', value: net.state === 'reconnecting' ? 'disconnected, reconnecting…' : (net.state ?? '…'), tone },
  ];
  if (net.world) {
    rows.push({ label: 'cell', value: `${net.world.cell ?? '…'} (${net.world.subscriptions} open)` });
    if (net.world.sendPhase !== null)
      rows.push({
        label: 'send moment',
        value: `${Math.round(net.world.sendPhase)} ms into each 100 ms (clock ±${Math.ceil((net.world.clockRttMs ?? 0) / 2)} ms after ${net.world.clockProbes} probes, ${net.world.timingNotes} timing notes)`,
      });
    if (net.population) rows.push({ label: 'world', value: `${net.population.players} players in ${net.population.cells} cells` });
    if (net.world.lastHopError) rows.push({ label: 'hop', value: net.world.lastHopError, tone: 'warn' });
  } else if (net.target)
    rows.push({ label: 'room', value: net.transport === 'relay' ? net.target.replace(/^.*\/rooms\/avatar\//, '') : net.target });
  if (net.selfId !== undefined) rows.push({ label: 'id', value: net.selfId === null ? '—' : String(net.selfId) });
  rows.push({ label: 'peers', value: `${net.peers ?? 0}${net.hearing ? ` (${net.hearing} in earshot)` : ''}` });
  rows.push({ label: 'sent / frames in', value: `${net.sent ?? 0} / ${net.frames ?? 0}` });
  if (net.pingMs !== null && net.pingMs !== undefined) rows.push({ label: 'ping', value: `${net.pingMs} ms` });
  if (net.rejected) rows.push({ label: 'rejected', value: `${net.rejected} (${net.lastRejection ?? ''})`, tone: 'warn' });
  const drops = Object.entries(net.relayDropped ?? {});
  if (drops.length) rows.push({ label: 'relay dropped', value: drops.map(([k, v]) => `${k} ${v}`).join(', '), tone: 'warn' });
  if (net.fallback) rows.push({ label: 'fallback', value: net.fallback, tone: 'warn' });
  if (net.lastError && net.state !== 'open') rows.push({ label: 'error', value: net.lastError, tone: 'bad' });
  return rows;
}
