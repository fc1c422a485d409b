/**
 * The built-in humanoid's own clips (`HUMANOID_CLIPS`, baked by `bakeClip`) keep its shoes on the
 * floor by the same sole rule as the animation library (src/rig/ground-contact.ts), measured on the
 * skinned mesh: the lowest skinned vertex over a clip against the lowest of the bind pose. The
 * default player avatar, the crowd and the net peers all draw these clips. With the ankle rule
 * alone (the pose functions' own grounding), the low-detail walk put the shoes 66 mm under the floor,
 * the run 103, the jump's crouch 76 and the dance 13.
 */
import { describe, expect, it } from 'vitest';
import { bakeClip, PROCEDURAL_CLIPS } from '../../../src/rig/clips.ts';
import { createHumanoid } from '../../../src/rig/humanoid.ts';
import { MANNEQUIN } from '../../../src/rig/mannequin.ts';
import { sinkOverClip } from '../../harness/skinned-floor.ts';

describe('ground contact: the built-in humanoid’s own clips', () => {
  const humanoid = createHumanoid({ detail: 'low' });
  const sink = (name: string): number => sinkOverClip(humanoid.object, humanoid.clip(name));

  it.each(['walk', 'run'])('keeps the shoes on the floor in %s (within 3 mm, touching)', (name) => {
    const figure = sink(name);
    expect(figure).toBeGreaterThan(-0.003);
    expect(figure).toBeLessThan(0.003);
  });

  it.each(['idle', 'jump', 'wave', 'dance'])('keeps the shoes out of the floor in %s', (name) => {
    expect(sink(name)).toBeGreaterThan(-0.003);
  });

  it('puts the walk’s shoes under the floor with the ankle rule alone (what the sole rule fixes)', () => {
    const ankleOnly = bakeClip({ ...PROCEDURAL_CLIPS.walk, contact: 'ankle' }, MANNEQUIN);
    expect(sinkOverClip(humanoid.object, ankleOnly)).toBeLessThan(-0.03);
  });
});
