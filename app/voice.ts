import { CircleGeometry, ConeGeometry, GridHelper, Mesh, MeshBasicMaterial, SphereGeometry, type Object3D } from 'three';
import { createStage, showFatal, showNotice, type Stage } from '../src/world/index.ts';
import { VoiceChat, VoicePanel, voiceHudRows, voiceRoomProblem, type TalkMode, type VoiceStats } from '../src/voice/index.ts';

/**
 * The voice page: you (the cone) stand on a grid; everyone else in the room is a sphere where their
 * position says. Joins the voice room at once.
 * - `?room=NAME` (default lobby), `?mode=open` for an open mic (default push-to-talk, hold V),
 * - `?x=&z=&facing=` the starting place (m, rad), `?join=0` to wait for the Join button,
 * - diagnostics: `?denoiserUrl=URL` loads the RNNoise worklet from elsewhere (a bad URL shows the
 *   fallback), `?keepalive=PING,DEAD` keep-alive timings in seconds.
 * Publishes `cairn.voice` (the VoiceChat), `cairn.stats.voice`, and `cairn.voicePage.place(x, y, z, facing)`.
 */
const params = new URLSearchParams(location.search);
const num = (name: string, fallback: number): number => {
  const value = Number(params.get(name));
  return params.has(name) && Number.isFinite(value) ? value : fallback;
};

async function main(): Promise<void> {
  let stage: Stage;
  try {
    stage = await createStage({ fov: 50 });
  } catch (error) {
    showFatal('Cairn cannot start', (error as Error).message);
    return;
  }
  const room = params.get('room') ?? 'lobby';
  const problem = voiceRoomProblem(room);
  if (problem) {
    showFatal('Bad voice room', `?room=${room.slice(0, 64)}: ${problem}`);
    return;
  }
  const mode: TalkMode = params.get('mode') === 'open' ? 'open' : 'push-to-talk';
  const [pingSeconds, deadAfterSeconds] = (params.get('keepalive') ?? '').split(',').map(Number);
  const me = { x: num('x', 0), y: 0, z: num('z', 0), facing: num('facing', Math.PI) };

  const { scene, camera } = stage;
  scene.add(new GridHelper(60, 30, 0x4a6072, 0x2a3a46));
  const marker = new Mesh(new ConeGeometry(0.35, 1, 20), new MeshBasicMaterial({ color: 0x8fe39a }));
  marker.rotation.x = Math.PI / 2; // point the cone along +Z, then turn the holder by facing
  const meHolder = new Mesh(new CircleGeometry(0.5, 24), new MeshBasicMaterial({ color: 0x2f6b45 }));
  meHolder.rotation.x = -Math.PI / 2;
  const meObject = new Mesh();
  meObject.add(meHolder, marker);
  scene.add(meObject);
  const peerMeshes = new Map<number, Object3D>();
  const peerGeometry = new SphereGeometry(0.4, 20, 12);
  const peerMaterial = new MeshBasicMaterial({ color: 0x7fb4ff });

  const panel = new VoicePanel({
    join: async () => {
      const voice = new VoiceChat({
        room,
        mode,
        workletUrl: params.get('denoiserUrl') ?? undefined,
        pingSeconds: Number.isFinite(pingSeconds) && pingSeconds! > 0 ? pingSeconds : undefined,
        deadAfterSeconds: Number.isFinite(deadAfterSeconds) && deadAfterSeconds! > 0 ? deadAfterSeconds : undefined,
        notify: showNotice,
      });
      voice.setListener(me);
      await voice.join();
      return voice;
    },
    left: () => {
      for (const mesh of peerMeshes.values()) scene.remove(mesh);
      peerMeshes.clear();
    },
  });
  stage.hud?.addSection('voice', { title: 'Voice', rows: (stats) => voiceHudRows(stats.voice as VoiceStats | undefined) });

  const keys = new Set<string>();
  window.addEventListener('keydown', (e) => keys.add(e.code));
  window.addEventListener('keyup', (e) => keys.delete(e.code));
  window.addEventListener('blur', () => keys.clear());

  stage.onFrame((dt) => {
    const walk = (keys.has('KeyW') || keys.has('ArrowUp') ? 1 : 0) - (keys.has('KeyS') || keys.has('ArrowDown') ? 1 : 0);
    const turn = (keys.has('KeyA') || keys.has('ArrowLeft') ? 1 : 0) - (keys.has('KeyD') || keys.has('ArrowRight') ? 1 : 0);
    me.facing += turn * 2 * dt;
    me.x += Math.sin(me.facing) * walk * 3 * dt;
    me.z += Math.cos(me.facing) * walk * 3 * dt;
    meObject.position.set(me.x, 0.05, me.z);
    meObject.rotation.y = me.facing;
    camera.position.set(me.x, 18, me.z + 10);
    camera.lookAt(me.x, 0, me.z);
    const voice = panel.voice;
    if (!voice) return;
    voice.setListener(me);
    const seen = new Set<number>();
    for (const peer of voice.stats.peers) {
      const pos = voice.mixer.peerPosition(peer.id);
      if (!pos) continue;
      seen.add(peer.id);
      let mesh = peerMeshes.get(peer.id);
      if (!mesh) {
        mesh = new Mesh(peerGeometry, peerMaterial);
        peerMeshes.set(peer.id, mesh);
        scene.add(mesh);
      }
      mesh.position.set(pos.x, 0.4, pos.z);
    }
    for (const [id, mesh] of peerMeshes) {
      if (!seen.has(id)) {
        scene.remove(mesh);
        peerMeshes.delete(id);
      }
    }
  });

  stage.cairn.voicePage = {
    panel,
    /** Moves the local listener (and so what others hear of us); tests use it to stage scenes. */
    place(x: number, y: number, z: number, facing: number) {
      Object.assign(me, { x, y, z, facing });
    },
  };
  stage.start();
  if (params.get('join') !== '0') await panel.joinNow();
}

void main();
