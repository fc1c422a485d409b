/**
 * How tall a loaded character stands: a height resting on the import's unit guess must be a
 * person's, a height in metres is the artist's unless no character could be that size.
 */
import { describe, expect, it } from 'vitest';
import { AVATAR_HEIGHT_DEFAULTS, avatarScale, parseAvatarHeight } from '../../../src/avatar/avatar-height.ts';
import { withDefaults } from '../../../src/core/options.ts';

const auto = AVATAR_HEIGHT_DEFAULTS;

describe('avatar height policy', () => {
  it('keeps a stylised character in metres and scales the same height read from a unit guess', () => {
    // Kenney's mini character: 0.67 m in a glTF's metres, deliberately small.
    expect(avatarScale(0.67, 'm', auto)).toEqual({ scale: 1, note: null });
    // The same 0.67 m read from 67 units as centimetres by the size alone: no person, a unit mistake.
    const guessed = avatarScale(0.67, 'cm', auto);
    expect(guessed.scale).toBeCloseTo(1.75 / 0.67, 10);
    expect(guessed.note).toBe(
      "reads 0.67 m tall (authored in centimetres by the file's size, outside a person's 1.2–2.4 m); scaled ×2.61 to 1.75 m (height: 'file' keeps the file's height)",
    );
  });

  it('keeps people of any unit and scales what no character could be', () => {
    expect(avatarScale(1.865, 'm', auto).scale).toBe(1);
    expect(avatarScale(1.8, 'cm', auto).scale).toBe(1);
    expect(avatarScale(1.2, 'mm', auto).scale).toBe(1);
    expect(avatarScale(2.4, 'mm', auto).scale).toBe(1);
    expect(avatarScale(1.19, 'mm', auto).scale).toBeCloseTo(1.75 / 1.19, 10);
    expect(avatarScale(2.6, 'cm', auto).scale).toBeCloseTo(1.75 / 2.6, 10);
    // An ogre in metres stays; a Blender file read as 4.85 m does not, nor a 20 cm doll.
    expect(avatarScale(3.5, 'm', auto).scale).toBe(1);
    expect(avatarScale(4.85, 'm', auto)).toEqual({
      scale: 1.75 / 4.85,
      note: "reads 4.85 m tall (outside any character's 0.3–4 m); scaled ×0.36 to 1.75 m (height: 'file' keeps the file's height)",
    });
    expect(avatarScale(0.2, 'm', auto).scale).toBeCloseTo(1.75 / 0.2, 10);
    // A unit the caller gave is believed like metres.
    expect(avatarScale(0.67, 'given', auto).scale).toBe(1);
  });

  it("takes the ranges, the default height, 'file' and a number from the options", () => {
    expect(avatarScale(0.485, 'mm', withDefaults(auto, { height: 'file' }))).toEqual({ scale: 1, note: null });
    expect(avatarScale(0.485, 'mm', withDefaults(auto, { defaultHeight: 1.6 })).scale).toBeCloseTo(1.6 / 0.485, 10);
    expect(avatarScale(0.485, 'mm', withDefaults(auto, { humanHeights: [0.4, 2.4] })).scale).toBe(1);
    expect(avatarScale(0.67, 'm', withDefaults(auto, { characterHeights: [1, 3] })).scale).toBeCloseTo(1.75 / 0.67, 10);
    const asked = avatarScale(1.87, 'm', withDefaults(auto, { height: 1.5 }));
    expect(asked.scale).toBeCloseTo(1.5 / 1.87, 10);
    expect(asked.note).toBe('reads 1.87 m tall; scaled ×0.80 to 1.50 m as asked (height: 1.5)');
    expect(() => avatarScale(1.865, 'm', withDefaults(auto, { height: -1 }))).toThrow(RangeError);
    // No height to scale from (an empty model): kept.
    expect(avatarScale(0, 'm', auto)).toEqual({ scale: 1, note: null });
  });
});

describe('the world page reads ?avatarHeight=', () => {
  it('takes auto, file and metres, and names a value it cannot use', () => {
    expect(parseAvatarHeight(null)).toEqual({ ok: true, height: 'auto' });
    expect(parseAvatarHeight('auto')).toEqual({ ok: true, height: 'auto' });
    expect(parseAvatarHeight('file')).toEqual({ ok: true, height: 'file' });
    expect(parseAvatarHeight('1.8')).toEqual({ ok: true, height: 1.8 });
    for (const bad of ['0', '-1', 'tall', '1e9', 'NaN']) {
      const read = parseAvatarHeight(bad);
      expect(read.ok).toBe(false);
      if (!read.ok) expect(read.problem).toContain(`avatarHeight=${bad}`);
    }
  });
});
