import { describe, expect, it } from 'vitest';
import type { Crowd } from '../../../src/crowd/crowd.ts';
import { RemoteAvatars } from '../../../src/crowd/remote-avatars.ts';
import { CrowdPeerView } from '../../../src/net/view/crowd-peer-view.ts';
import { PROCEDURAL_CLIPS } from '../../../src/rig/clips.ts';

interface Call {
  agent: number;
  op: string;
  args: unknown[];
}

/** A crowd that records what the registry asks of it (the batched renderer needs a GPU device). */
function recordingCrowd(): { crowd: Crowd; calls: Call[] } {
  const calls: Call[] = [];
  let next = 0;
  const crowd = {
    add(options: unknown) {
      const agent = next++;
      calls.push({ agent, op: 'add', args: [options] });
      return {
        setTransform: (...args: unknown[]) => calls.push({ agent, op: 'setTransform', args }),
        play: (...args: unknown[]) => calls.push({ agent, op: 'play', args }),
        remove: () => calls.push({ agent, op: 'remove', args: [] }),
      };
    },
  } as unknown as Crowd;
  return { crowd, calls };
}

describe('CrowdPeerView (remote players through the crowd module’s RemoteAvatars)', () => {
  it('creates the agent with the peer’s pose and clip, then moves it; a state change plays the clip at a speed-matched rate', () => {
    const remotes = new RemoteAvatars<number>();
    const { crowd, calls } = recordingCrowd();
    remotes.attach(crowd);
    const view = new CrowdPeerView({ remotes });
    const avatar = view.add(7);
    avatar.setTransform(1, 2, 3, 0.5);
    expect(calls).toEqual([{ agent: 0, op: 'add', args: [{ x: 1, y: 2, z: 3, facing: 0.5, clip: 'idle', speed: 1 }] }]);
    avatar.setTransform(2, 2, 3, 0.6);
    expect(calls[1]).toEqual({ agent: 0, op: 'setTransform', args: [2, 2, 3, 0.6] });
    expect(calls).toHaveLength(2); // no clip resent while it does not change
    avatar.play('run', PROCEDURAL_CLIPS.run.speed / 2);
    expect(calls.at(-1)).toEqual({ agent: 0, op: 'play', args: ['run', { fade: 0.25, speed: 0.5 }] });
    avatar.play('swim', 1); // the mannequin has no swim clip
    expect(calls.at(-1)).toEqual({ agent: 0, op: 'play', args: ['idle', { fade: 0.25, speed: 1 }] });
    avatar.play('walk', 0.1); // a crawl still moves the legs
    expect((calls.at(-1)!.args[1] as { speed: number }).speed).toBe(0.4);
    expect(view.count).toBe(1);
    avatar.remove();
    expect(calls.at(-1)).toEqual({ agent: 0, op: 'remove', args: [] });
    expect(view.count).toBe(0);
    expect(remotes.count).toBe(0);
  });

  it('before the crowd renderer exists, counts dropped updates and sends the clip again once it is attached', () => {
    const remotes = new RemoteAvatars<number>();
    const view = new CrowdPeerView({ remotes });
    const avatar = view.add(3);
    avatar.setTransform(0, 0, 0, 0);
    avatar.play('walk', PROCEDURAL_CLIPS.walk.speed);
    avatar.setTransform(1, 0, 0, 0);
    expect(view.dropped).toBe(3);
    expect(remotes.dropped).toBe(3);
    const { crowd, calls } = recordingCrowd();
    remotes.attach(crowd);
    avatar.setTransform(2, 0, 0, 0);
    // Created at once with the walk it missed, not the crowd's first clip.
    expect(calls).toEqual([{ agent: 0, op: 'add', args: [{ x: 2, y: 0, z: 0, facing: 0, clip: 'walk', speed: 1 }] }]);
    avatar.setTransform(3, 0, 0, 0);
    expect(calls.at(-1)!.op).toBe('setTransform');
  });

  it('dispose removes every avatar from the crowd; a re-added id replaces the old avatar', () => {
    const remotes = new RemoteAvatars<number>();
    const { crowd, calls } = recordingCrowd();
    remotes.attach(crowd);
    const view = new CrowdPeerView({ remotes });
    view.add(1).setTransform(0, 0, 0, 0);
    view.add(2).setTransform(5, 0, 0, 0);
    view.add(2).setTransform(6, 0, 0, 0);
    expect(view.ids().sort()).toEqual([1, 2]);
    expect(remotes.count).toBe(2);
    view.dispose();
    expect(view.count).toBe(0);
    expect(remotes.count).toBe(0);
    expect(
      calls
        .filter((c) => c.op === 'remove')
        .map((c) => c.agent)
        .sort(),
    ).toEqual([0, 1, 2]);
  });
});
