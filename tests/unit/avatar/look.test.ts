import { Box3, Vector3, type Mesh } from 'three';
import { describe, expect, it } from 'vitest';
import { defaultChoice, parseLookParam, readStoredChoice, sharedProfile, unsharedReason } from '../../../src/avatar/look.ts';
import { PlayerAvatar } from '../../../src/avatar/player-avatar.ts';
import { HUMANOID_BUILDS, OUTFITS, humanoidVariantFromSeed } from '../../../src/rig/humanoid-variants.ts';

const base = 'http://127.0.0.1:8787/?world=1';

describe('the player’s look choice', () => {
  it('defaults differ per browser seed and stay the same for one seed', () => {
    expect(defaultChoice(42)).toEqual(defaultChoice(42));
    expect(defaultChoice(42)).not.toEqual(defaultChoice(43));
    expect(defaultChoice(42).name).toMatch(/^Visitor \d{4}$/);
    expect(defaultChoice(42).variant).toEqual(humanoidVariantFromSeed(42));
  });

  it('reads ?look= as a variant, a seed or a file URL resolved against the page', () => {
    expect(parseLookParam('1.2.3.4', base)).toEqual({ ok: true, value: { variant: { build: 1, skin: 2, hair: 3, outfit: 4 } } });
    expect(parseLookParam('humanoid:0.0.0.11', base).ok).toBe(true);
    expect(parseLookParam('0.0.0.12', base).ok).toBe(false);
    expect(parseLookParam('seed:9', base)).toEqual({ ok: true, value: { variant: humanoidVariantFromSeed(9) } });
    expect(parseLookParam('/models/hero.glb', base)).toEqual({ ok: true, value: { model: 'http://127.0.0.1:8787/models/hero.glb' } });
    expect(parseLookParam('javascript:alert(1)', base).ok).toBe(false);
  });

  it('takes back only a well-formed stored choice', () => {
    const good = { name: 'Ada', variant: { build: 1, skin: 1, hair: 1, outfit: 1 }, model: null };
    expect(readStoredChoice(good)).toEqual(good);
    expect(readStoredChoice({ ...good, name: '\u202E' })).toBeNull();
    expect(readStoredChoice({ ...good, variant: { build: 99, skin: 0, hair: 0, outfit: 0 } })).toBeNull();
    expect(readStoredChoice({ ...good, model: 'ftp://x/y.glb' })).toBeNull();
    expect(readStoredChoice('junk')).toBeNull();
  });

  it('shares a file only once it is drawn here and others may fetch it, the humanoid variant otherwise', () => {
    const variant = { build: 2, skin: 3, hair: 4, outfit: 5 };
    const file = 'https://models.example/hero.glb';
    const choice = { name: 'Ada', variant, model: file };
    expect(sharedProfile(choice, { modelSource: null, variant }).look).toEqual({ kind: 'humanoid', ...variant });
    expect(sharedProfile(choice, { modelSource: file, variant }).look).toEqual({ kind: 'model', url: file });
    const lan = { ...choice, model: 'http://192.168.1.5:8787/models/hero.glb' };
    expect(sharedProfile(lan, { modelSource: lan.model, variant }).look.kind).toBe('humanoid');
    expect(unsharedReason(lan)).toMatch(/must be https/);
  });
});

describe('the player’s humanoid variant', () => {
  it('dresses and sizes the built-in humanoid, and a new variant replaces it', () => {
    const avatar = new PlayerAvatar({ variant: { build: 0, skin: 0, hair: 0, outfit: 0 }, castShadow: false, detail: 'low' });
    const statuses: string[] = [];
    avatar.on('status', ({ stats }) => statuses.push(stats.status));
    const shirtOf = (): number[] => {
      const clothing = avatar.humanoid!.meshes.find((m) => m.name === 'clothing') as Mesh;
      const color = clothing.geometry.getAttribute('color');
      return [color.getX(0), color.getY(0), color.getZ(0)].map((v) => +v.toFixed(3));
    };
    const heightOf = (): number => {
      avatar.object.updateMatrixWorld(true);
      return new Box3().setFromObject(avatar.object).getSize(new Vector3()).y;
    };
    const before = heightOf();
    expect(shirtOf()).toEqual(OUTFITS[0]!.shirt.map((v) => +v.toFixed(3)));
    avatar.setVariant({ build: 2, skin: 1, hair: 1, outfit: 7 });
    expect(shirtOf()).toEqual(OUTFITS[7]!.shirt.map((v) => +v.toFixed(3)));
    expect(heightOf() / before).toBeCloseTo(HUMANOID_BUILDS[2]!.height, 2);
    expect(avatar.variant).toEqual({ build: 2, skin: 1, hair: 1, outfit: 7 });
    expect(avatar.object.children).toHaveLength(1);
    expect(statuses).toEqual(['ready']);
    avatar.dispose();
  });
});
