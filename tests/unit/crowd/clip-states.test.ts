/**
 * A crowd built from a real file with some clips: each state plays the file's clip where its name
 * says so and Cairn's library (retargeted onto the rig) where the file has none, so no peer plays a
 * clip meant for another state. Files from tests/fixtures/import (see its README).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { loadCrowdTemplateFromFile } from '../../../src/crowd/load-template.ts';
import { SyntheticPeers } from '../../../src/crowd/synthetic-peers.ts';
import type { CrowdTemplate } from '../../../src/crowd/template.ts';
import { gltfBytesForThree, readGltfDocument } from '../../../src/rig/node/model-file.ts';

vi.setConfig({ testTimeout: 60_000 });

const FIXTURES = join(import.meta.dirname, '../../fixtures/import');

/** Which of 20 seeded peers, over 20 s, play a clip other than the one their activity's state has. */
function peersOnAnotherState(template: CrowdTemplate): string[] {
  const peers = new SyntheticPeers({ seed: 3 });
  peers.resize(20);
  const wrong: string[] = [];
  for (let step = 0; step < 40; step++) {
    for (const peer of peers.peers) {
      const clip = template.clips[template.resolveClip(peer.clip)]!.name;
      if (clip !== template.report.clipStates[peer.clip]) wrong.push(`${peer.clip} plays ${clip}`);
    }
    peers.step(0.5);
  }
  return wrong;
}

describe('a crowd from a file with some clips', () => {
  it('plays the zombie’s own idle and walk, and the library’s dance, for every peer', async () => {
    // Quaternius's zombie: idle, walk, run, bite and crawl; no dance.
    const name = 'quaternius-zombie.fbx';
    const template = await loadCrowdTemplateFromFile(new File([readFileSync(join(FIXTURES, name))], name));
    expect(template.report.clipStates).toEqual({
      idle: 'Zombie|ZombieIdle',
      walk: 'Zombie|ZombieWalk',
      run: 'Zombie|ZombieRun',
      dance: 'dance',
      wave: 'wave',
      cheer: 'cheer',
    });
    // The library's dance is retargeted onto the zombie's own bones.
    const dance = template.clips[template.resolveClip('dance')]!;
    expect(dance.name).toBe('dance');
    expect(dance.clip.tracks.some((track) => track.name.startsWith('Hips.'))).toBe(true);
    expect(template.report.notes.join('\n')).toMatch(
      /clips: idle ← Zombie\|ZombieIdle, walk ← Zombie\|ZombieWalk, run ← Zombie\|ZombieRun, dance ← dance \(library\)/,
    );
    expect(peersOnAnotherState(template)).toEqual([]);
  });

  it('reads the three.js robot’s clip names, takes only cheer from the library, and says what it drops', async () => {
    const name = 'robot-expressive.glb';
    // Node has no image decoder: the import layer's Node path hands three the model without images.
    const bytes = await gltfBytesForThree(await readGltfDocument(join(FIXTURES, name)));
    const template = await loadCrowdTemplateFromFile(new File([bytes], name));
    expect(template.report.clipStates).toEqual({
      idle: 'Idle',
      walk: 'Walking',
      run: 'Running',
      jump: 'Jump',
      dance: 'Dance',
      wave: 'Wave',
      cheer: 'cheer',
    });
    expect(peersOnAnotherState(template)).toEqual([]);
    // Its face-morph tracks (3 heads × 14 clips) are set aside, and said.
    expect(template.report.droppedTracks).toBe(42);
    expect(template.report.losses).toContain(
      '42 clip tracks dropped: they drive morph targets, which crowd avatars do not run (Dance: Head_2.morphTargetInfluences, Dance: Head_3.morphTargetInfluences, Dance: Head_4.morphTargetInfluences, …)',
    );
    expect(template.report.losses).toContain('3 morph targets set aside: crowd avatars do not run morph targets (Angry, Surprised, Sad)');
  });
});
