// The HUD, notices and window.cairn straight from their files: the world's index would pull
// three.js and the whole world into a page that draws with a 2D canvas (a megabyte to parse).
import { Hud } from '../src/world/hud.ts';
import { showNotice } from '../src/world/notices.ts';
import { pageCairn, pageFatal } from './cairn.ts';
import * as voiceModule from '../src/voice/index.ts';
import { VoiceChat, VoicePanel, voiceHudRows, roomNameIssue, type TalkMode, type WirePosition } from '../src/voice/index.ts';

/** What the voice page publishes as `cairn.voicePage`. */
export interface VoicePageApi {
  panel: VoicePanel;
  /** Moves the local listener (and so what others hear of us); tests use it to stage scenes. */
  place(x: number, y: number, z: number, facing: number): void;
}

declare module '../src/world/cairn-global.ts' {
  interface CairnGlobal {
    /** The voice page's controls. */
    voicePage?: VoicePageApi;
    /** The voice module itself, so tests render its graphs offline. */
    voiceModule?: typeof voiceModule;
  }
}

/**
 * The voice page: a top-down map of the voice room. You are the green arrow; everyone else is a
 * blue dot where their position says, with a ring showing how loud they reach you. Joins at once.
 * It draws with a 2D canvas, not WebGPU: the page is about sound, and leaving the GPU (SwiftShader
 * on CI) alone keeps the audio threads fed.
 * - `?room=NAME` (default lobby), `?mode=open` for an open mic (default push-to-talk, hold V),
 * - `?x=&z=&facing=` the starting place (m, rad), `?join=0` to wait for the Join button,
 * - diagnostics: `?denoiserUrl=URL` loads the RNNoise worklet from elsewhere (a bad URL shows the
 *   fallback), `?keepalive=PING,DEAD` keep-alive timings in seconds (converted to the
 *   client's milliseconds here, at the page's edge).
 * Publishes `cairn.voice` (the VoiceChat), `cairn.stats.voice`, `cairn.voicePage.place(x, y, z, facing)`
 * and `cairn.voiceModule` (the module's classes, so tests render its graphs offline).
 */
const params = new URLSearchParams(location.search);
const num = (name: string, fallback: number): number => {
  const value = Number(params.get(name));
  return params.has(name) && Number.isFinite(value) ? value : fallback;
};
/** Map scale: pixels per metre. */
const SCALE = 12;

async function main(): Promise<void> {
  const cairn = pageCairn();
  const room = params.get('room') ?? 'lobby';
  const problem = roomNameIssue(room);
  if (problem) {
    pageFatal('Bad voice room', `?room=${room.slice(0, 64)}: ${problem}`);
    return;
  }
  const mode: TalkMode = params.get('mode') === 'open' ? 'open' : 'push-to-talk';
  // Seconds in the URL (short to type), milliseconds everywhere past this line.
  const [pingMs, deadMs] = (params.get('keepalive') ?? '').split(',').map((text) => {
    const seconds = Number(text);
    return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : undefined;
  });
  const me: WirePosition = { x: num('x', 0), y: 0, z: num('z', 0), facing: num('facing', Math.PI) };

  const canvas = document.createElement('canvas');
  canvas.className = 'cairn-canvas';
  Object.assign(canvas.style, { position: 'fixed', inset: '0', width: '100%', height: '100%', display: 'block' });
  document.body.append(canvas);
  const g = canvas.getContext('2d');
  if (!g) {
    pageFatal('Cairn cannot start', 'this browser has no 2D canvas');
    return;
  }

  const hud = new Hud({ stats: () => cairn.stats });
  cairn.hud = hud;
  // This page renders no 3D: its first HUD section is the page's own, not the renderer's.
  hud.addSection('frame', {
    title: 'Voice page',
    rows: () => [{ label: 'map', value: `${SCALE} px/m · you at ${me.x.toFixed(1)}, ${me.z.toFixed(1)}` }],
  });
  hud.addSection('voice', { title: 'Voice', rows: (stats) => voiceHudRows(stats.voice) });

  const panel = new VoicePanel({
    join: async () => {
      const voice = new VoiceChat({
        room,
        mode,
        workletUrl: params.get('denoiserUrl') ?? undefined,
        pingMs,
        deadMs,
        notify: showNotice,
      });
      voice.setListener(me);
      cairn.voice = voice;
      cairn.stats.voice = voice.stats;
      await voice.join();
      return voice;
    },
  });

  const keys = new Set<string>();
  window.addEventListener('keydown', (e) => keys.add(e.code));
  window.addEventListener('keyup', (e) => keys.delete(e.code));
  window.addEventListener('blur', () => keys.clear());

  let last = performance.now();
  const frame = (now: number): void => {
    const dt = Math.min(0.1, (now - last) / 1000);
    last = now;
    const walk = (keys.has('KeyW') || keys.has('ArrowUp') ? 1 : 0) - (keys.has('KeyS') || keys.has('ArrowDown') ? 1 : 0);
    const turn = (keys.has('KeyA') || keys.has('ArrowLeft') ? 1 : 0) - (keys.has('KeyD') || keys.has('ArrowRight') ? 1 : 0);
    me.facing += turn * 2 * dt;
    me.x += Math.sin(me.facing) * walk * 3 * dt;
    me.z += Math.cos(me.facing) * walk * 3 * dt;
    panel.voice?.setListener(me);
    draw(g, canvas, me, panel.voice);
    if (!cairn.ready) cairn.ready = true;
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);

  cairn.voiceModule = voiceModule;
  cairn.voicePage = {
    panel,
    /** Moves the local listener (and so what others hear of us); tests use it to stage scenes. */
    place(x: number, y: number, z: number, facing: number) {
      Object.assign(me, { x, y, z, facing });
    },
  };
  if (params.get('join') !== '0') await panel.joinNow();
}

/** Top-down map, north (−Z) up, east (+X) right, centred on the listener. */
function draw(g: CanvasRenderingContext2D, canvas: HTMLCanvasElement, me: WirePosition, voice: VoiceChat | null): void {
  const width = canvas.clientWidth;
  const height = canvas.clientHeight;
  if (canvas.width !== width || canvas.height !== height) {
    canvas.width = width;
    canvas.height = height;
  }
  const cx = width / 2;
  const cy = height / 2;
  const toScreen = (x: number, z: number): [number, number] => [cx + (x - me.x) * SCALE, cy + (z - me.z) * SCALE];
  g.fillStyle = '#1b2630';
  g.fillRect(0, 0, width, height);
  g.strokeStyle = '#2a3a46';
  g.lineWidth = 1;
  const step = 5 * SCALE;
  const ox = (((cx - me.x * SCALE) % step) + step) % step;
  const oy = (((cy - me.z * SCALE) % step) + step) % step;
  g.beginPath();
  for (let x = ox; x < width; x += step) {
    g.moveTo(x, 0);
    g.lineTo(x, height);
  }
  for (let y = oy; y < height; y += step) {
    g.moveTo(0, y);
    g.lineTo(width, y);
  }
  g.stroke();
  // Reach rings: full level within 2 m, −12 dB at 8 m, faded out past 40–50 m.
  g.strokeStyle = '#3f5b73';
  for (const metres of [2, 8, 40]) {
    g.beginPath();
    g.arc(cx, cy, metres * SCALE, 0, Math.PI * 2);
    g.stroke();
  }
  if (voice) {
    g.font = '11px system-ui, sans-serif';
    for (const peer of voice.stats.peers) {
      const pos = voice.mixer.peerPosition(peer.id);
      if (!pos) continue;
      const [x, y] = toScreen(pos.x, pos.z);
      g.fillStyle = peer.connection === 'connected' ? '#7fb4ff' : '#ffd27a';
      g.beginPath();
      g.arc(x, y, 6, 0, Math.PI * 2);
      g.fill();
      g.fillText(`${peer.id}`, x + 9, y + 4);
    }
  }
  // You: an arrow along forward = (sin facing, cos facing) in x/z.
  const fx = Math.sin(me.facing);
  const fz = Math.cos(me.facing);
  g.fillStyle = '#8fe39a';
  g.beginPath();
  g.moveTo(cx + fx * 12, cy + fz * 12);
  g.lineTo(cx - fx * 7 + fz * 7, cy - fz * 7 - fx * 7);
  g.lineTo(cx - fx * 7 - fz * 7, cy - fz * 7 + fx * 7);
  g.closePath();
  g.fill();
}

main().catch((error: unknown) => pageFatal('Voice cannot start', (error as Error).message));
