/** A client's profile budget in one room or cell: a few changes at once, then one every five seconds. */
export const PROFILE_LIMITS = { ratePerSecond: 0.2, burst: 4 } as const;
