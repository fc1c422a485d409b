/**
 * Display names and looks in the real Worker (workerd): a profile is checked, stored with the
 * socket, sent to everyone who joins later and announced to everyone present; a name the rules
 * refuse never reaches anyone; a flood of profile changes is held to its client's budget while
 * honest clients' changes go through; world cells show the profiles of their own players to the
 * cells around, and a player who hops is shown by its new cell.
 */
import { afterEach, describe, expect, inject, it } from 'vitest';
import { HUMANOID_VARIANTS, profileCommand, type AvatarLook, type PeerProfile } from '../../src/net/protocol/profile.ts';
import { cellRoom, type Cell, type WorldEntry, type WorldHop } from '../../src/net/protocol/world.ts';
import { PROFILE_LIMITS } from '../../server/avatar/profile-limits.ts';
import { ANONYMOUS_SHARE } from '../../server/identity/client.ts';
import { cellUrl, freshIp, fromIp, sleep } from '../harness/griefer.ts';
import { RelayClient, roomStats, settle } from '../harness/net-client.ts';
import { wsUrl } from '../harness/ws-client.ts';

const base = inject('serverUrl');
const run = Date.now().toString(36);
const open: RelayClient[] = [];
afterEach(() => {
  for (const client of open.splice(0)) client.socket.terminate();
});

const roomName = (name: string): string => `${name}-${run}`;
const join = async (room: string, ip = freshIp()): Promise<RelayClient> => {
  const client = await RelayClient.join(wsUrl(base, `/rooms/avatar/${roomName(room)}`), fromIp(ip));
  open.push(client);
  return client;
};
const humanoid = (outfit: number): AvatarLook => ({ kind: 'humanoid', build: 1, skin: 2, hair: 3, outfit });
/** Every profile a client was sent, in order (greetings and announcements alike). */
const profilesOf = (client: RelayClient): PeerProfile[] => client.controls<{ peers: PeerProfile[] }>('profiles').flatMap((m) => m.peers);
const latest = (client: RelayClient, id: number): PeerProfile | undefined =>
  profilesOf(client)
    .filter((p) => p.id === id)
    .at(-1);

describe('profiles in a relay room', () => {
  it('stores a profile, greets a late joiner with everyone’s, and announces a change to the others', async () => {
    const ada = await join('profiles');
    ada.send(profileCommand({ name: '  Ada  ', look: humanoid(4) }));
    const bo = await join('profiles');
    bo.send(profileCommand({ name: 'Bo', look: { kind: 'model', url: 'https://models.example/bo.glb' } }));
    // The late joiner's greeting holds the earlier player's profile, trimmed as the rules say.
    await bo.waitFor(() => latest(bo, ada.id) !== undefined, 'greeting with Ada');
    expect(latest(bo, ada.id)).toEqual({ id: ada.id, name: 'Ada', look: humanoid(4) });
    await ada.waitFor(() => latest(ada, bo.id) !== undefined, 'announcement of Bo');
    expect(latest(ada, bo.id)!.look).toEqual({ kind: 'model', url: 'https://models.example/bo.glb' });
    // A third player, later still, gets both in its greeting without sending anything.
    const cy = await join('profiles');
    await cy.waitFor(() => latest(cy, ada.id) !== undefined && latest(cy, bo.id) !== undefined, 'greeting with both');
    expect(
      profilesOf(cy)
        .map((p) => p.name)
        .sort(),
    ).toEqual(['Ada', 'Bo']);
    // A change reaches everyone present, and only once per change.
    ada.send(profileCommand({ name: 'Ada L.', look: humanoid(7) }));
    await bo.waitFor(() => latest(bo, ada.id)?.name === 'Ada L.', 'Ada renamed, at Bo');
    await cy.waitFor(() => latest(cy, ada.id)?.name === 'Ada L.', 'Ada renamed, at Cy');
    // Sending the same profile again changes nothing and is not announced.
    ada.send(profileCommand({ name: 'Ada L.', look: humanoid(7) }));
    await settle();
    expect(profilesOf(bo).filter((p) => p.id === ada.id)).toHaveLength(2);
    expect(ada.controls('dropped')).toEqual([]);
    const stats = (await roomStats(base, roomName('profiles'))) as { profiles?: { accepted: number; sent: number; sentBytes: number } };
    expect(stats.profiles!.accepted).toBe(4);
  });

  it('refuses a name with a bidi override or a control, with the reason, and forwards nothing', async () => {
    const honest = await join('refuse');
    const sender = await join('refuse');
    const look = humanoid(0);
    for (const name of ['\u202Eevil', 'tab\u0007bell', '', 'x'.repeat(40)]) sender.send(JSON.stringify({ type: 'profile', name, look }));
    sender.send(JSON.stringify({ type: 'profile', name: 'fine', look: { kind: 'model', url: 'javascript:alert(1)' } }));
    sender.send(JSON.stringify({ type: 'profile', name: 'fine', look: { ...look, build: HUMANOID_VARIANTS.build } }));
    await sender.waitFor(() => sender.controls('refused').length === 6, 'six refusals');
    const reasons = sender.controls<{ command: string; reason: string }>('refused');
    expect(reasons.every((r) => r.command === 'profile')).toBe(true);
    expect(reasons[0]!.reason).toMatch(/U\+202E/);
    expect(reasons[4]!.reason).toMatch(/https/);
    await settle();
    expect(profilesOf(honest)).toEqual([]);
    // Text that is not a profile is still dropped in a plain room.
    sender.send('{"type":"pace","close":true}');
    await sender.waitFor(() => sender.controls('dropped').length > 0, 'text drop');
    expect(sender.controls<{ reason: string }>('dropped')[0]!.reason).toBe('text');
  });

  it('holds a flood of profile changes to its client’s budget, beside honest clients whose changes go through', async () => {
    const honestA = await join('flood');
    const honestB = await join('flood');
    const attackerIp = freshIp();
    // Two sockets from one address: one client's budget (per client, not per socket).
    const griefers = [await join('flood', attackerIp), await join('flood', attackerIp)];
    const sends = 300;
    const started = Date.now();
    for (let i = 0; i < sends; i++)
      griefers[i % 2]!.send(profileCommand({ name: `spam ${i}`, look: humanoid(i % HUMANOID_VARIANTS.outfit) }));
    // Meanwhile an honest player changes its look once.
    honestB.send(profileCommand({ name: 'honest B', look: humanoid(2) }));
    await honestA.waitFor(() => latest(honestA, honestB.id)?.name === 'honest B', "honest B's change at A");
    type DeskStats = { accepted: number; overBudget: number; sent: number; sentBytes: number };
    let stats: DeskStats = { accepted: 0, overBudget: 0, sent: 0, sentBytes: 0 };
    // Every change is handled (accepted or dropped) before counting what reached the honest client.
    for (let waited = 0; stats.accepted + stats.overBudget < sends + 1 && waited < 20_000; waited += 250) {
      await sleep(250);
      stats = ((await roomStats(base, roomName('flood'))) as unknown as { profiles: DeskStats }).profiles;
    }
    expect(stats.accepted + stats.overBudget).toBe(sends + 1);
    await settle();
    const elapsed = (Date.now() - started) / 1000;
    const spam = profilesOf(honestA).filter((p) => p.name.startsWith('spam')).length;
    // An address without a session is ANONYMOUS_SHARE clients' worth: burst 32, then 1.6 a second.
    const allowed = ANONYMOUS_SHARE * (PROFILE_LIMITS.burst + PROFILE_LIMITS.ratePerSecond * elapsed);
    expect(spam).toBeGreaterThan(0);
    expect(spam).toBeLessThanOrEqual(Math.ceil(allowed));
    const dropped = griefers.flatMap((g) => g.controls<{ reason: string; count: number }>('dropped'));
    expect(dropped.some((d) => d.reason === 'rate')).toBe(true);
    expect(stats.accepted - 1).toBe(spam);
    console.log(
      `[profile flood] ${sends} changes from one address on 2 sockets in ${elapsed.toFixed(1)} s: ${spam} accepted, ` +
        `${stats.overBudget} over budget (allowed ≤ ${allowed.toFixed(1)}); the honest change delivered; ` +
        `${stats.sent} profiles messages sent, ${(stats.sentBytes / Math.max(1, stats.sent)).toFixed(0)} bytes each on average`,
    );
  });
});

async function enter(x: number, z: number, ip: string): Promise<WorldEntry> {
  const response = await fetch(`${base}/api/world/enter`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...fromIp(ip) },
    body: JSON.stringify({ x, z }),
  });
  if (!response.ok) throw new Error(`enter: HTTP ${response.status} ${await response.text()}`);
  return (await response.json()) as WorldEntry;
}

async function cellSocket(cell: Cell, token: string, role: 'pub' | 'sub', ip: string): Promise<RelayClient> {
  const client = await RelayClient.join(cellUrl(base, cell, token, role), fromIp(ip));
  open.push(client);
  await client.waitFor(() => client.controls('cell').length > 0, 'cell ack');
  return client;
}

describe('profiles in world cells', () => {
  it('shows a cell’s players to the cells around, and a hopping player from its new cell', async () => {
    // Far cells of the test world, apart from other suites.
    const west: Cell = { x: 50, z: 50 };
    const east: Cell = { x: 51, z: 50 };
    const ipA = freshIp();
    const ipB = freshIp();
    const a = await enter(50 * 64 + 60, 50 * 64 + 30, ipA);
    const b = await enter(51 * 64 + 30, 50 * 64 + 30, ipB);
    expect(a.cell).toEqual(west);
    expect(b.cell).toEqual(east);
    const aPub = await cellSocket(west, a.token, 'pub', ipA);
    const aWatch = await cellSocket(east, a.token, 'sub', ipA);
    aPub.send(profileCommand({ name: 'walker', look: humanoid(5) }));
    aWatch.send(profileCommand({ name: 'walker', look: humanoid(5) }));
    const bPub = await cellSocket(east, b.token, 'pub', ipB);
    const bWatch = await cellSocket(west, b.token, 'sub', ipB);
    bPub.send(profileCommand({ name: 'stayer', look: humanoid(9) }));
    // B watches the west cell: it is greeted with A, who publishes there.
    await bWatch.waitFor(() => latest(bWatch, a.id)?.name === 'walker', 'A at B’s watcher');
    // A watches the east cell, where B publishes: B's profile is announced to A's watcher.
    await aWatch.waitFor(() => latest(aWatch, b.id)?.name === 'stayer', 'B at A’s watcher');
    // A's own watcher socket in the east cell is not shown there (A publishes in the west).
    await settle();
    expect(latest(bPub, a.id)).toBeUndefined();
    // A hops east: publishing there shows its stored profile to the east cell at once.
    const response = await fetch(`${base}/api/world/hop`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...fromIp(ipA) },
      body: JSON.stringify({ token: a.token, cell: east }),
    });
    expect(response.status).toBe(200);
    const hop = (await response.json()) as WorldHop;
    aWatch.send(JSON.stringify({ type: 'publish', token: hop.token }));
    await bPub.waitFor(() => latest(bPub, a.id)?.name === 'walker', 'A shown by the east cell after the hop');
    expect(latest(bPub, a.id)!.look).toEqual(humanoid(5));
    expect(cellRoom(east)).toBe('world:cell:51:50');
  });
});
