import { FLAT_SAMPLING_PROBE, stripFlatInterpolationSampling } from './wgsl-dialect.ts';

/** One compiler message from `GPUShaderModule.getCompilationInfo()`, with its source line. */
export interface ShaderMessage {
  /** `error`, `warning` or `info` (only errors are reported). */
  type: GPUCompilationMessageType;
  /** The compiler's text. */
  message: string;
  /** Line of the WGSL source (1-based; 0 when the compiler gave none). */
  lineNum: number;
  /** Column in that line (1-based). */
  linePos: number;
  /** The offending source line, when the compiler gave a line number. */
  line: string;
}

/** A shader module that failed to compile, with every message the compiler gave. */
export interface ShaderError {
  /** The module's label (three names modules after their material and stage). */
  label: string;
  /** The compiler's error messages, in the order it gave them (warnings and infos are left out). */
  messages: ShaderMessage[];
}

/**
 * Wraps `device.createShaderModule` so that every module's compilation messages are read back
 * and errors reach `onError` with the real WGSL compiler text, instead of three's generic
 * "module is not valid" at pipeline creation. Optionally rewrites source first (dialect shims).
 */
export function installShaderDiagnostics(
  device: GPUDevice,
  onError: (error: ShaderError) => void,
  rewrite?: (code: string) => string,
): void {
  const original = device.createShaderModule.bind(device);
  device.createShaderModule = (descriptor: GPUShaderModuleDescriptor): GPUShaderModule => {
    const code = rewrite ? rewrite(descriptor.code) : descriptor.code;
    const module = original(rewrite ? { ...descriptor, code } : descriptor);
    void module.getCompilationInfo().then((info) => {
      const errors = info.messages.filter((m) => m.type === 'error');
      if (errors.length === 0) return;
      const lines = code.split('\n');
      onError({
        label: descriptor.label ?? '(unlabelled shader)',
        messages: errors.map((m) => ({
          type: m.type,
          message: m.message,
          lineNum: m.lineNum,
          linePos: m.linePos,
          line: lines[m.lineNum - 1] ?? '',
        })),
      });
    });
    return module;
  };
}

/**
 * True when this device rejects `@interpolate(flat, either)` and needs
 * {@link stripFlatInterpolationSampling}. Decided by compiling a probe, not by user agent.
 */
export async function needsFlatSamplingShim(device: GPUDevice): Promise<boolean> {
  device.pushErrorScope('validation');
  const module = device.createShaderModule({ code: FLAT_SAMPLING_PROBE, label: 'cairn flat-sampling probe' });
  const [info, scope] = await Promise.all([module.getCompilationInfo(), device.popErrorScope()]);
  return scope !== null || info.messages.some((m) => m.type === 'error');
}

export { stripFlatInterpolationSampling };

/** Formats a shader error for a person: label, then each message with its line and a caret. */
export function formatShaderError(error: ShaderError): string {
  return [
    `WGSL error in ${error.label}:`,
    ...error.messages.map((m) => `  line ${m.lineNum}:${m.linePos}: ${m.message}${m.line ? `\n    ${m.line.trim()}` : ''}`),
  ].join('\n');
}
