import { describe, expect, it } from 'vitest';
import { Mulberry32 } from '../../../src/core/rng.ts';
import { createFrame, FrameKind, type AvatarFrame } from '../../../src/net/protocol/frame.ts';
import { PeerTable } from '../../../src/net/peers/peer-table.ts';
import { createPose } from '../../../src/net/peers/remote-peer.ts';

function state(id: number, seq: number, ts: number, fields: Partial<AvatarFrame> = {}): AvatarFrame {
  return { ...createFrame(), senderId: id, seq, timestamp: ts >>> 0, ...fields };
}

describe('PeerTable: interpolation buffer', () => {
  it('renders ~100 ms behind, interpolating linearly between samples despite bunched (coalesced) arrivals', () => {
    const table = new PeerTable();
    const rng = new Mulberry32(5);
    // A peer walking +X at 10 m/s, sending at 10 Hz; the relay delivers in 40 ms ticks plus 20–30 ms latency.
    const senderStart = 1_000_000;
    const localStart = 50_000;
    for (let k = 0; k < 40; k++) {
      const sentAt = k * 100;
      const arrival = localStart + Math.ceil((sentAt + 1) / 40) * 40 + 20 + rng.range(0, 10);
      table.ingest(state(7, k + 1, senderStart + sentAt, { x: sentAt / 100, z: 2, state: undefined } as never), arrival);
    }
    const peer = table.peers.get(7)!;
    expect(peer.intervalMs).toBeGreaterThan(90);
    expect(peer.intervalMs).toBeLessThan(110);
    const pose = createPose();
    // Local time when the newest frame (sent at 3900) has just arrived.
    const now = localStart + 3900 + 70;
    const renderTime = table.renderTime(peer, now);
    expect(now - renderTime).toBeGreaterThanOrEqual(100);
    expect(now - renderTime).toBeLessThan(140);
    const xs: number[] = [];
    for (let t = renderTime - 500; t <= renderTime; t += 25) {
      peer.pose(t, table.extrapolateMs, pose);
      expect(pose.extrapolated).toBe(false);
      expect(pose.z).toBe(2);
      xs.push(pose.x);
    }
    // Evenly spaced render times give evenly spaced positions (0.25 m per 25 ms at 10 m/s).
    for (let i = 1; i < xs.length; i++) expect(xs[i]! - xs[i - 1]!).toBeCloseTo(0.25, 1);
  });

  it('interpolates facing along the short arc across ±π', () => {
    const table = new PeerTable();
    table.ingest(state(1, 1, 0, { facing: Math.PI - 0.1 }), 1000);
    table.ingest(state(1, 2, 100, { facing: -Math.PI + 0.1 }), 1100);
    const peer = table.peers.get(1)!;
    const pose = createPose();
    peer.pose(1050, 250, pose);
    expect(Math.abs(Math.abs(pose.facing) - Math.PI)).toBeLessThan(0.01);
  });

  it('extrapolates briefly past the newest sample, then holds', () => {
    const table = new PeerTable({ extrapolateMs: 200 });
    table.ingest(state(1, 1, 0, { x: 0 }), 1000);
    table.ingest(state(1, 2, 100, { x: 1 }), 1100);
    const peer = table.peers.get(1)!;
    const pose = createPose();
    peer.pose(1200, table.extrapolateMs, pose);
    expect(pose.x).toBeCloseTo(2, 5);
    expect(pose.extrapolated).toBe(true);
    peer.pose(5000, table.extrapolateMs, pose);
    expect(pose.x).toBeCloseTo(3, 5); // 200 ms at 10 m/s, no further
  });

  it('filters its own echo, drops duplicates and out-of-order frames, merges two sources without duplicates', () => {
    const table = new PeerTable();
    table.selfId = 42;
    expect(table.ingest(state(42, 1, 0), 0)).toBe('echo');
    expect(table.size).toBe(0);
    const added: number[] = [];
    table.events.on('added', (p) => added.push(p.id));
    // The same frames arrive through two cells: each is applied once.
    for (let seq = 1; seq <= 5; seq++) {
      expect(table.ingest(state(9, seq, seq * 100), seq * 100)).toBe(seq === 1 ? 'added' : 'updated');
      expect(table.ingest(state(9, seq, seq * 100), seq * 100 + 5)).toBe('stale');
    }
    expect(table.ingest(state(9, 3, 300), 700)).toBe('stale');
    expect(added).toEqual([9]);
    expect(table.peers.get(9)!.frames).toBe(5);
    expect(table.stats).toMatchObject({ echoes: 1, stale: 6 });
  });

  it('accepts sequence numbers and timestamps across the u32 wrap', () => {
    const table = new PeerTable();
    const start = 0xffffffff - 150;
    for (let k = 0; k < 4; k++) {
      expect(table.ingest(state(3, (0xfffffffe + k) >>> 0, start + k * 100, { x: k }), 10_000 + k * 100)).not.toBe('stale');
    }
    const peer = table.peers.get(3)!;
    expect(peer.frames).toBe(4);
    const pose = createPose();
    peer.pose(10_000 + 150, 250, pose); // sender time start+150 lies across the wrap
    expect(pose.x).toBeCloseTo(1.5, 5);
  });

  it('drops a peer after silence, and after a leave once the grace has passed — unless newer frames come', () => {
    const table = new PeerTable({ silenceMs: 3000, leaveGraceMs: 300 });
    const removed: number[] = [];
    table.events.on('removed', (p) => removed.push(p.id));
    table.ingest(state(1, 1, 0), 0);
    table.ingest(state(2, 1, 0), 0);
    table.ingest(state(3, 1, 0), 0);
    table.expire(2999);
    expect(table.size).toBe(3);
    table.ingest(state(2, 2, 3000), 3000);
    table.ingest(state(3, 2, 3000), 3000);
    table.expire(3001);
    expect(removed).toEqual([1]); // silent for 3 s
    expect(table.stats.silenced).toBe(1);
    // 2 leaves for good; 3 leaves one cell but its frames keep coming through another.
    expect(table.ingest({ ...createFrame(), kind: FrameKind.leave, senderId: 2 }, 3100)).toBe('leave');
    expect(table.ingest({ ...createFrame(), kind: FrameKind.leave, senderId: 3 }, 3100)).toBe('leave');
    table.ingest(state(3, 3, 3150), 3150);
    table.expire(3399);
    expect(table.size).toBe(2);
    table.expire(3400);
    expect(removed).toEqual([1, 2]);
    expect([...table.peers.keys()]).toEqual([3]);
  });

  it('queues animation states in order, comparing with the last queued (walk then idle in one tick ends in idle)', () => {
    const table = new PeerTable({ delayMs: 100 });
    table.ingest(state(5, 1, 0, { animState: 0 }), 1000);
    const peer = table.peers.get(5)!;
    const pose = createPose();
    const requests: string[] = [];
    peer.pose(1000, 250, pose);
    expect(peer.takeStateRequests(requests as never)).toEqual(['idle']);
    // Two frames inside one render tick: walk, then idle again.
    table.ingest(state(5, 2, 30, { animState: 1 }), 1030);
    table.ingest(state(5, 3, 60, { animState: 0 }), 1060);
    peer.pose(1080, 250, pose);
    expect(peer.takeStateRequests(requests as never)).toEqual(['walk', 'idle']);
    expect(pose.state).toBe('idle');
    peer.pose(1200, 250, pose);
    expect(peer.takeStateRequests(requests as never)).toEqual([]);
  });

  it('stops adding peers at maxPeers (counted)', () => {
    const table = new PeerTable({ maxPeers: 2 });
    for (let id = 1; id <= 4; id++) table.ingest(state(id, 1, 0), 0);
    expect(table.size).toBe(2);
    expect(table.stats.full).toBe(2);
  });
});
