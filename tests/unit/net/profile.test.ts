import { describe, expect, it } from 'vitest';
import {
  checkDisplayName,
  checkLook,
  checkModelUrl,
  HUMANOID_VARIANTS,
  lookKey,
  MAX_PROFILES_CHARS,
  packProfiles,
  profileCommand,
  readProfileCommand,
  readProfiles,
  type PeerProfile,
} from '../../../src/net/protocol/profile.ts';
import { parseServerControl } from '../../../src/net/protocol/control.ts';
import {
  HAIR_COLOURS,
  HUMANOID_BUILDS,
  humanoidVariantFromSeed,
  OUTFITS,
  SKIN_TONES,
  variantPalette,
} from '../../../src/rig/humanoid-variants.ts';

describe('display names', () => {
  it('trims and collapses spaces, normalises to NFC, and keeps every script and emoji', () => {
    expect(checkDisplayName('  Ada   Lovelace\t')).toEqual({ ok: true, value: 'Ada Lovelace' });
    expect(checkDisplayName('Zoe\u0301')).toEqual({ ok: true, value: 'Zoé' });
    for (const name of ['李小龍', 'Ωμέγα', 'Анна', 'محمد', 'हिन्दी', '🧑‍🚀 astro', 'x'])
      expect(checkDisplayName(name)).toEqual({ ok: true, value: name });
  });

  it('refuses empty and over-long names, counting characters rather than UTF-16 units', () => {
    expect(checkDisplayName('   ').ok).toBe(false);
    expect(checkDisplayName('').ok).toBe(false);
    expect(checkDisplayName('a'.repeat(24)).ok).toBe(true);
    expect(checkDisplayName('a'.repeat(25))).toEqual({ ok: false, problem: 'the name has 25 characters (at most 24)' });
    // 24 astral characters are 48 UTF-16 units: still 24 characters.
    expect(checkDisplayName('😀'.repeat(24)).ok).toBe(true);
    expect(checkDisplayName(' '.repeat(10_000)).ok).toBe(false);
    expect(checkDisplayName(42).ok).toBe(false);
  });

  it('refuses controls, bidi overrides and isolates, zero widths and other invisible characters', () => {
    for (const bad of [
      'Ada\u0000',
      'Ada\u0007',
      'Ada\u007f',
      'Ada\u0085',
      '\u202Eevil',
      'a\u2066b\u2069',
      'a\u200Eb',
      'a\u061Cb',
      'a\u200Bb',
      'a\u2060b',
      '\uFEFFa',
      'a\u00ADb',
      'a\u{E0041}',
      'a\u2028b',
      'a\uE000b',
      'a\uD800b',
      'a\u{50000}',
    ]) {
      const checked = checkDisplayName(bad);
      expect(checked.ok, JSON.stringify(bad)).toBe(false);
    }
    expect(checkDisplayName('\u202Eevil')).toEqual({
      ok: false,
      problem: 'the name holds U+202E, a control, format or unassigned character',
    });
    // A joiner between two pictographs is an emoji; elsewhere it is an invisible character.
    expect(checkDisplayName('a\u200Db').ok).toBe(false);
  });

  it('refuses stacked combining marks (a label drawn over its neighbours)', () => {
    expect(checkDisplayName('e\u0301\u0302\u0303').ok).toBe(true);
    expect(checkDisplayName('e\u0301\u0302\u0303\u0304\u0305').ok).toBe(false);
  });
});

describe('looks', () => {
  it('take a humanoid variant within the tables, nothing more', () => {
    expect(checkLook({ kind: 'humanoid', build: 4, skin: 5, hair: 7, outfit: 11 }).ok).toBe(true);
    expect(checkLook({ kind: 'humanoid', build: 5, skin: 0, hair: 0, outfit: 0 }).ok).toBe(false);
    expect(checkLook({ kind: 'humanoid', build: 0.5, skin: 0, hair: 0, outfit: 0 }).ok).toBe(false);
    expect(checkLook({ kind: 'humanoid', build: 0, skin: 0, hair: 0 }).ok).toBe(false);
    expect(checkLook({ kind: 'humanoid', build: 0, skin: 0, hair: 0, outfit: 0, extra: 'x'.repeat(100) }).ok).toBe(false);
    expect(checkLook({ kind: 'robot' }).ok).toBe(false);
    expect(checkLook(null).ok).toBe(false);
  });

  it('take an https model URL (http only from this machine), in its canonical form', () => {
    expect(checkModelUrl('https://models.example/a b.glb')).toEqual({ ok: true, value: 'https://models.example/a%20b.glb' });
    expect(checkModelUrl('http://127.0.0.1:8787/x.glb').ok).toBe(true);
    expect(checkModelUrl('http://localhost/x.vrm').ok).toBe(true);
    for (const bad of [
      'http://evil.example/x.glb',
      'data:model/gltf+json,{}',
      'javascript:alert(1)',
      'blob:https://a/b',
      'file:///etc/passwd',
      '/relative.glb',
      'https://user:pw@models.example/x.glb',
      `https://models.example/${'a'.repeat(520)}`,
    ])
      expect(checkModelUrl(bad).ok, bad).toBe(false);
    expect(checkLook({ kind: 'model', url: 'https://models.example/x.glb' })).toEqual({
      ok: true,
      value: { kind: 'model', url: 'https://models.example/x.glb' },
    });
  });

  it('have one key per distinct character', () => {
    expect(lookKey({ kind: 'humanoid', build: 1, skin: 2, hair: 3, outfit: 4 })).toBe('humanoid:1.2.3.4');
    expect(lookKey({ kind: 'model', url: 'https://m.example/a.glb' })).toBe('model:https://m.example/a.glb');
  });
});

describe('profile messages', () => {
  it('round-trip a client command, and refuse what the rules refuse', () => {
    const text = profileCommand({ name: ' Ada ', look: { kind: 'humanoid', build: 1, skin: 2, hair: 3, outfit: 4 } });
    expect(text.length).toBeLessThan(120);
    expect(readProfileCommand(text)).toEqual({
      ok: true,
      value: { name: 'Ada', look: { kind: 'humanoid', build: 1, skin: 2, hair: 3, outfit: 4 } },
    });
    expect(readProfileCommand('{"type":"pace","close":true}')).toBeNull();
    expect(readProfileCommand('not json "profile"')).toBeNull();
    expect(
      readProfileCommand('{"type":"profile","name":"\u202Eb","look":{"kind":"humanoid","build":0,"skin":0,"hair":0,"outfit":0}}')?.ok,
    ).toBe(false);
    expect(
      readProfileCommand('{"type":"profile","name":"a","look":{"kind":"humanoid","build":0,"skin":0,"hair":0,"outfit":0},"admin":true}')
        ?.ok,
    ).toBe(false);
    expect(readProfileCommand(`{"type":"profile","name":"${'a'.repeat(2000)}"}`)?.ok).toBe(false);
    expect(() => profileCommand({ name: '', look: { kind: 'humanoid', build: 0, skin: 0, hair: 0, outfit: 0 } })).toThrow(RangeError);
  });

  it('pack a greeting under the control-text limit, every profile once, and parse on the client', () => {
    const peers: PeerProfile[] = Array.from({ length: 40 }, (_, i) => ({
      id: i + 1,
      name: `player ${i}`,
      look:
        i % 2
          ? { kind: 'model', url: `https://models.example/${'m'.repeat(400)}${i}.glb` }
          : { kind: 'humanoid', build: 0, skin: 1, hair: 2, outfit: 3 },
    }));
    const texts = packProfiles(peers);
    expect(texts.length).toBeGreaterThan(1);
    const seen: number[] = [];
    for (const text of texts) {
      expect(text.length).toBeLessThanOrEqual(MAX_PROFILES_CHARS);
      const parsed = parseServerControl(text);
      expect(parsed.ok).toBe(true);
      if (!parsed.ok || parsed.value.type !== 'profiles') throw new Error('not a profiles message');
      const { peers: read, refused } = readProfiles(parsed.value);
      expect(refused).toBe(0);
      seen.push(...read.map((p) => p.id));
    }
    expect(seen).toEqual(peers.map((p) => p.id));
  });

  it('skip a bad profile inside a profiles message and keep the rest (a relay that does not check)', () => {
    const parsed = parseServerControl(
      '{"type":"profiles","peers":[{"id":1,"name":"ok","look":{"kind":"humanoid","build":0,"skin":0,"hair":0,"outfit":0}},{"id":2,"name":"\\u0007","look":{"kind":"humanoid","build":0,"skin":0,"hair":0,"outfit":0}}]}',
    );
    if (!parsed.ok || parsed.value.type !== 'profiles') throw new Error('not parsed');
    const { peers, refused } = readProfiles(parsed.value);
    expect(peers.map((p) => p.id)).toEqual([1]);
    expect(refused).toBe(1);
  });
});

describe('humanoid variants', () => {
  it('have as many of each part as the protocol says', () => {
    expect(HUMANOID_BUILDS.length).toBe(HUMANOID_VARIANTS.build);
    expect(SKIN_TONES.length).toBe(HUMANOID_VARIANTS.skin);
    expect(HAIR_COLOURS.length).toBe(HUMANOID_VARIANTS.hair);
    expect(OUTFITS.length).toBe(HUMANOID_VARIANTS.outfit);
  });

  it('come from a seed: the same on every machine, and different players mostly look different', () => {
    expect(humanoidVariantFromSeed(1234)).toEqual(humanoidVariantFromSeed(1234));
    const keys = new Set<string>();
    const outfits = new Set<number>();
    for (let seed = 1; seed <= 64; seed++) {
      const variant = humanoidVariantFromSeed(seed);
      expect(checkLook({ kind: 'humanoid', ...variant }).ok).toBe(true);
      keys.add(JSON.stringify(variant));
      outfits.add(variant.outfit);
    }
    // 64 seeds: nearly all distinct (2,880 combinations) and every outfit used.
    expect(keys.size).toBeGreaterThan(60);
    expect(outfits.size).toBe(OUTFITS.length);
    // Neighbouring seeds (consecutive avatar ids) differ.
    expect(humanoidVariantFromSeed(7)).not.toEqual(humanoidVariantFromSeed(8));
  });

  it('dress the humanoid in the chosen colours', () => {
    const palette = variantPalette({ build: 0, skin: 3, hair: 4, outfit: 5 });
    expect(palette.skin).toEqual(SKIN_TONES[3]);
    expect(palette.hair).toEqual(HAIR_COLOURS[4]);
    expect(palette.shirt).toEqual(OUTFITS[5]!.shirt);
  });
});
