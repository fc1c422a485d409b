/**
 * WGSL dialect fixes applied to shader source on its way into `createShaderModule`, for devices
 * whose compiler lags the spec. Pure string functions, unit-tested in Node.
 */

const FLAT_WITH_SAMPLING = /@interpolate\(\s*flat\s*,\s*(?:either|first)\s*,?\s*\)/g;

/**
 * three.js emits `@interpolate(flat, either)`; WebKit's WGSL compiler has not shipped the
 * two-argument form. `@interpolate(flat)` means `flat, first`, which is a valid choice for
 * `either` and identical to `first`, so dropping the sampling argument never changes results:
 * a flat value is constant per primitive anyway.
 */
export function stripFlatInterpolationSampling(code: string): string {
  return code.replace(FLAT_WITH_SAMPLING, '@interpolate(flat)');
}

/** A WGSL module that compiles only where the two-argument flat interpolation is understood. */
export const FLAT_SAMPLING_PROBE = /* wgsl */ `
struct VertexOut {
  @builtin(position) position: vec4f,
  @location(0) @interpolate(flat, either) id: u32,
};
@vertex fn main(@builtin(vertex_index) index: u32) -> VertexOut {
  var out: VertexOut;
  out.position = vec4f(0.0, 0.0, 0.0, 1.0);
  out.id = index;
  return out;
}
`;
