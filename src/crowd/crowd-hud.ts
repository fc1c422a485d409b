/**
 * The crowd's HUD rows, computed only from `cairn.stats.crowd` (and the budget reading stored
 * there), so the HUD shows exactly what tests assert. Pure: no DOM.
 */
import type { HudRow } from '../world/hud.ts';
import type { CrowdStats } from './crowd.ts';
import type { GpuBudgetReading } from './gpu-budget.ts';
import type { RemoteLooksStats } from './remote-avatars.ts';

/** One row of the crowd's HUD section: a {@link HudRow}. */
export type CrowdHudRow = HudRow;

/** What a page publishes under `cairn.stats.crowd`. */
export interface CrowdPageStats extends CrowdStats {
  /** The page's GPU budget reading (calibration, PASS/OVER), when the page keeps one. */
  budget?: GpuBudgetReading;
  /** Last model-loading error shown to the user, if any. */
  lastError?: string | null;
  /** Vertices of every mesh in the character's file, and how many the crowd draws (fewer: a partial import). */
  sourceVertices?: number;
  /** Vertices the crowd draws (below `sourceVertices` when parts of the file are left out). */
  drawnVertices?: number;
  /** Which clip plays each animation state (the file's, or the library's retargeted onto the rig). */
  clipStates?: Partial<Record<string, string>>;
  /** What the character's import and the crowd could not carry (a missing texture, tracks, morphs), one sentence each. */
  losses?: string[];
  /** What draws the remote players: templates, looks, draw calls, files loading or refused. */
  looks?: RemoteLooksStats;
}

declare module '../world/cairn-global.ts' {
  interface CairnStats {
    /** The crowd's figures (the world and the crowd pages; the comparison page publishes `stats.compare`). */
    crowd?: CrowdPageStats;
  }
}

/** A byte count for reading: B, KB (1024) or MB (1024²). */
export function formatBytes(bytes: number): string {
  if (bytes >= 1 << 20) return `${(bytes / (1 << 20)).toFixed(2)} MB`;
  if (bytes >= 1 << 10) return `${(bytes / (1 << 10)).toFixed(1)} KB`;
  return `${bytes} B`;
}

/** The crowd section's HUD rows, from the crowd's figures alone; one "not started" row before there are any. */
export function crowdHudRows(stats: CrowdPageStats | undefined): CrowdHudRow[] {
  if (!stats) return [{ label: 'crowd', value: 'not started' }];
  const budget = stats.budget;
  const rows: CrowdHudRow[] = [
    { label: 'avatars', value: `${stats.agents} (${stats.template}, ${stats.bones} bones)` },
    { label: 'GPU / live / culled', value: `${stats.gpu} / ${stats.live} / ${stats.culled}` },
    ...Object.entries(stats.reasons ?? {})
      .sort((a, b) => b[1] - a[1])
      .map(([why, count]) => ({ label: `  ${why.replace(': ', ' · ')}`, value: String(count) })),
    { label: 'bone path', value: stats.path, tone: 'ok' },
    ...(stats.losses ?? []).map((loss) => ({ label: 'lost', value: loss, tone: 'warn' as const })),
    { label: 'crowd draws/pass', value: String(stats.drawCallsPerPass) },
    { label: 'anim ms', value: stats.animMsAvg.toFixed(2) },
    { label: 'live poses this frame', value: String(stats.liveUpdates) },
    {
      label: 'upload/frame',
      value: `${formatBytes(stats.uploadBytes)} (${stats.visible > 0 ? (stats.uploadBytes / stats.visible).toFixed(1) : '0'} B/avatar)`,
    },
    {
      label: 'baked clips',
      value: `${stats.clips} clips, ${stats.bakedRows} frames @ ${stats.bakedFps.toFixed(0)} fps, ${formatBytes(stats.bakedBytes)} (${stats.bakedPrecision})`,
    },
  ];
  if (budget) {
    const tone = budget.state === 'pass' ? 'ok' : budget.state === 'over' ? 'bad' : 'warn';
    rows.push({ label: 'gpu budget', value: budget.message, tone });
  }
  if (stats.sourceVertices !== undefined && stats.drawnVertices !== undefined)
    rows.push({
      label: 'model vertices',
      value: `${stats.drawnVertices} of ${stats.sourceVertices} drawn`,
      tone: stats.drawnVertices < stats.sourceVertices ? 'warn' : 'ok',
    });
  if (stats.lastError) rows.push({ label: 'model', value: stats.lastError, tone: 'bad' });
  const looks = stats.looks;
  if (looks && looks.looks > 0) {
    rows.push({
      label: 'player looks',
      value: `${looks.looks} looks, ${looks.templates} templates, ${looks.drawCallsPerPass} draws/pass${looks.standIns ? ` · ${looks.standIns} as humanoid` : ''}`,
    });
    if (looks.loading.length) rows.push({ label: '  loading', value: looks.loading.map((url) => url.split('/').pop()).join(', ') });
    for (const [url, why] of Object.entries(looks.refused)) rows.push({ label: `  ${url.split('/').pop()}`, value: why, tone: 'warn' });
  }
  return rows;
}
