/**
 * Push-to-talk gain envelope: first-order (setTargetAtTime) curves with a fast attack, so the first
 * syllable survives, and a slow release, so the last consonant drains instead of being cut.
 * Pure numbers; push-to-talk.ts applies them to a GainNode.
 */

/** Attack time constant, seconds: 95% gain after 12 ms, 99.3% after 20 ms. */
export const PTT_ATTACK_TAU = 0.004;
/** Release: time to fall to −60 dB (silence), seconds. */
export const PTT_RELEASE_SECONDS = 0.4;
/** Release time constant: −60 dB is a factor of 1000, reached after ln(1000) ≈ 6.9 time constants. */
export const PTT_RELEASE_TAU = PTT_RELEASE_SECONDS / Math.log(1000);

/** Gain `t` seconds after a press that started at gain `from` (1 − (1 − from)·e^(−t/τ)). */
export function attackGain(t: number, from = 0, tau = PTT_ATTACK_TAU): number {
  return t <= 0 ? from : 1 - (1 - from) * Math.exp(-t / tau);
}

/** Gain `t` seconds after a release that started at gain `from`. */
export function releaseGain(t: number, from = 1, tau = PTT_RELEASE_TAU): number {
  return t <= 0 ? from : from * Math.exp(-t / tau);
}

/**
 * Mean power of a steady signal through the attack over the first `window` seconds, relative to
 * full gain (1 = nothing lost). Closed form of (1/T)∫(1 − e^(−t/τ))² dt.
 */
export function attackEnergyRatio(window: number, tau = PTT_ATTACK_TAU): number {
  const a = Math.exp(-window / tau);
  return 1 - (2 * tau * (1 - a)) / window + (tau * (1 - a * a)) / (2 * window);
}
