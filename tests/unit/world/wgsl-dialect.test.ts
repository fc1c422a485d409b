import { describe, expect, it } from 'vitest';
import { stripFlatInterpolationSampling } from '../../../src/world/wgsl-dialect.ts';

describe('stripFlatInterpolationSampling', () => {
  it('drops the sampling argument of flat interpolation', () => {
    const code = '@location(0) @interpolate(flat, either) id: u32,\n@location(1) @interpolate( flat , first ) a: u32,';
    expect(stripFlatInterpolationSampling(code)).toBe('@location(0) @interpolate(flat) id: u32,\n@location(1) @interpolate(flat) a: u32,');
  });

  it('leaves everything else byte-for-byte alone', () => {
    const code = [
      '@location(0) @interpolate(flat) a: u32,',
      '@location(1) @interpolate(perspective, centroid) b: vec3f,',
      '@location(2) @interpolate(linear) c: f32,',
      '// @interpolate(flat, either) in a comment is rewritten too, harmlessly',
    ].join('\n');
    const out = stripFlatInterpolationSampling(code);
    expect(out.split('\n').slice(0, 3)).toEqual(code.split('\n').slice(0, 3));
  });

  it('rewrites every occurrence', () => {
    const code = Array.from({ length: 5 }, (_, i) => `@location(${i}) @interpolate(flat, either) v${i}: u32,`).join('\n');
    expect(stripFlatInterpolationSampling(code).match(/@interpolate\(flat\)/g)).toHaveLength(5);
    expect(stripFlatInterpolationSampling(code)).not.toMatch(/either/);
  });
});
