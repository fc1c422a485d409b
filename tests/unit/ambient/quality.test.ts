import { describe, expect, it } from 'vitest';
import { chooseQuality, QUALITY_TIERS } from '../../../src/ambient/quality.ts';
import { isSoftwareAdapter } from '../../../src/world/renderer.ts';

describe('the world’s quality tier', () => {
  it('knows a software rasteriser from a GPU by the adapter’s description', () => {
    // What Chromium reports here (WebGPU adapter info, and WebGL2's unmasked renderer string).
    for (const adapter of [
      'google / swiftshader / SwiftShader Device (Subzero)',
      'WebGL2 (ANGLE (Google, Vulkan 1.3.0 (SwiftShader Device (Subzero) (0x0000C0DE)), SwiftShader driver))',
      'mesa / llvmpipe (LLVM 15.0.6, 256 bits)',
      'WebGL2 (Microsoft Basic Render Driver)',
    ])
      expect(isSoftwareAdapter(adapter), adapter).toBe(true);
    for (const adapter of [
      'nvidia / ada-lovelace',
      'apple / metal-3',
      'WebGL2 (ANGLE (NVIDIA, NVIDIA GeForce RTX 4070))',
      'unknown adapter',
    ])
      expect(isSoftwareAdapter(adapter), adapter).toBe(false);
  });

  it('takes low on a software rasteriser and full on a GPU, and says why', () => {
    const soft = chooseQuality({ adapter: 'google / swiftshader', asked: null });
    expect(soft).toMatchObject({ tier: 'low', asked: false, software: true, people: 8, renderScale: 0.7, shadows: false });
    expect(soft.reason).toBe('software rasteriser (google / swiftshader): no GPU');
    const gpu = chooseQuality({ adapter: 'nvidia / ada-lovelace', asked: null });
    expect(gpu).toMatchObject({ tier: 'full', asked: false, software: false, renderScale: 1, shadows: true });
    expect(gpu.reason).toBe('hardware GPU (nvidia / ada-lovelace)');
  });

  it('follows ?quality= anywhere, and ignores what is not a tier', () => {
    expect(chooseQuality({ adapter: 'google / swiftshader', asked: 'full' })).toMatchObject({ tier: 'full', asked: true, software: true });
    expect(chooseQuality({ adapter: 'nvidia', asked: 'off' })).toMatchObject({ tier: 'off', asked: true, people: 0 });
    expect(chooseQuality({ adapter: 'nvidia', asked: 'ultra' })).toMatchObject({ tier: 'full', asked: false });
    expect(chooseQuality({ adapter: 'nvidia', asked: 'off' }).reason).toBe('asked for (?quality=off)');
  });

  it('draws at full resolution where the browser presents a scaled buffer slowly, and keeps the rest of the tier', () => {
    const firefox = chooseQuality({ adapter: 'unknown adapter', asked: 'low', scaledBufferIsSlow: true });
    expect(firefox).toMatchObject({ tier: 'low', renderScale: 1, shadows: false, people: QUALITY_TIERS.low.people });
    expect(chooseQuality({ adapter: 'unknown adapter', asked: 'low', scaledBufferIsSlow: false }).renderScale).toBe(
      QUALITY_TIERS.low.renderScale,
    );
  });

  it('lets ?people=N override the tier’s people, clamped to 0–40', () => {
    expect(chooseQuality({ adapter: 'nvidia', asked: null, people: '3' }).people).toBe(3);
    expect(chooseQuality({ adapter: 'nvidia', asked: 'off', people: '5' }).people).toBe(5);
    expect(chooseQuality({ adapter: 'nvidia', asked: null, people: '500' }).people).toBe(40);
    expect(chooseQuality({ adapter: 'nvidia', asked: null, people: 'lots' }).people).toBe(QUALITY_TIERS.full.people);
  });

  it('orders the tiers by what they draw', () => {
    expect(QUALITY_TIERS.off.scatter).toBeNull();
    expect(QUALITY_TIERS.low.scatter!.loadRadius!).toBeLessThan(200);
    expect(QUALITY_TIERS.low.renderScale).toBeLessThan(QUALITY_TIERS.full.renderScale);
  });
});
