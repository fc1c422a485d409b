/**
 * Remote players' looks in the crowd: every humanoid look is a variant of the one humanoid
 * template (any mix, three draw calls), a character file is a crowd of its own once it has loaded
 * (the humanoid stands in meanwhile, and for good on a refusal, with the reason), and a file is
 * fetched with size and vertex caps. Real files: the CC0 mannequin exported in centimetres.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { PerspectiveCamera, Scene } from 'three';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Crowd } from '../../../src/crowd/crowd.ts';
import { HUMANOID_CROWD_VARIANTS, humanoidCrowdVariant } from '../../../src/crowd/humanoid-looks.ts';
import { AnimField, ANIM_FLOATS } from '../../../src/crowd/instance-layout.ts';
import { loadCrowdTemplateFromBytes } from '../../../src/crowd/load-template.ts';
import { RemoteAvatars } from '../../../src/crowd/remote-avatars.ts';
import { loadRemoteTemplate } from '../../../src/crowd/remote-models.ts';
import { CrowdTemplate } from '../../../src/crowd/template.ts';
import { VariantTable } from '../../../src/crowd/variant-table.ts';
import type { HumanoidLook } from '../../../src/net/protocol/profile.ts';
import { createHumanoid } from '../../../src/rig/humanoid.ts';
import { humanoidVariantFromSeed } from '../../../src/rig/humanoid-variants.ts';

const FIXTURES = join(import.meta.dirname, '../../fixtures/import');
const MANNEQUIN_CM = readFileSync(join(FIXTURES, 'mannequin-cm.glb'));
const bytesOf = (buffer: Buffer): ArrayBuffer =>
  buffer.buffer.slice(buffer.byteOffset, buffer.byteOffset + buffer.byteLength) as ArrayBuffer;

const humanoidTemplate = (): CrowdTemplate => new CrowdTemplate(createHumanoid({ detail: 'low' }), { name: 'mannequin' });
const camera = (): PerspectiveCamera => {
  const c = new PerspectiveCamera(60, 1, 0.1, 500);
  c.position.set(0, 2, 12);
  c.lookAt(0, 1, 0);
  return c;
};
const at = (i: number) => ({ x: (i % 5) * 1.5 - 3, y: 0, z: -Math.floor(i / 5) * 1.5, facing: 0, clip: 'idle' });
const humanoid = (outfit: number): HumanoidLook => ({ kind: 'humanoid', build: 2, skin: 1, hair: 4, outfit });

describe('the variant table', () => {
  it('shares an entry by key, reuses the least recently used free one, and wears entry 0 when full', () => {
    const table = new VariantTable({ regions: [[1, 0, 0]], capacity: 3 });
    const red = { colors: [[1, 0, 0]] as const, height: 1, width: 1 };
    const a = table.acquire('a', { ...red, height: 1.1 });
    expect(table.acquire('a', red)).toBe(a);
    const b = table.acquire('b', red);
    expect(new Set([0, a, b]).size).toBe(3);
    // Full: a third look wears the template as authored.
    expect(table.acquire('c', red)).toBe(0);
    expect(table.full).toBe(1);
    // The build travels in entry 0's w (height) and entry 1's w (width).
    expect(table.data[a * table.stride * 4 + 3]).toBeCloseTo(1.1);
    table.release(b);
    expect(table.acquire('c', red)).toBe(b);
    expect(table.inUse).toBe(2);
  });
});

describe('remote players in the crowd', () => {
  it('draws any mix of humanoid looks with the humanoid’s three draw calls, each player in its own variant', () => {
    const crowd = new Crowd({ template: humanoidTemplate(), variants: HUMANOID_CROWD_VARIANTS });
    const remotes = new RemoteAvatars<number>();
    remotes.attach(crowd, { createCrowd: () => crowd, parent: new Scene() });
    // Ten players without a profile: each wears the variant seeded from its id.
    for (let id = 1; id <= 10; id++) remotes.update(id, at(id));
    expect(remotes.lookOf(3)).toEqual({ kind: 'humanoid', ...humanoidVariantFromSeed(3) });
    expect(remotes.lookOf(3)).not.toEqual(remotes.lookOf(4));
    // Two of them choose the same look: one variant entry for both.
    remotes.setLook(1, humanoid(6));
    remotes.setLook(2, humanoid(6));
    expect(remotes.agent(1)!.variant).toBe(remotes.agent(2)!.variant);
    expect(remotes.agent(1)!.variant).not.toBe(remotes.agent(3)!.variant);
    crowd.update(0.016, camera());
    const looks = remotes.looks();
    expect(looks.templates).toBe(1);
    expect(looks.drawCallsPerPass).toBe(3);
    expect(crowd.stats.drawCallsPerPass).toBe(3);
    expect(looks.looks).toBe(9);
    expect(looks.variants).toBe(9);
    // The variant index is in each drawn avatar's animation record, and its table entry holds the look.
    const index = remotes.agent(1)!.variant;
    const k = remotes.agent(1)!.drawIndex;
    expect(crowd.renderer.anims[k * ANIM_FLOATS + AnimField.Variant]).toBe(index);
    const table = crowd.variants!;
    const shirt = humanoidCrowdVariant(humanoid(6)).colors[2]!;
    const o = (index * table.stride + 2) * 4;
    expect(Array.from(table.data.subarray(o, o + 3)).map((v) => +v.toFixed(4))).toEqual(shirt.map((v) => +v.toFixed(4)));
    expect(table.data[index * table.stride * 4 + 3]).toBeCloseTo(1.07); // the tall build
    // A player who leaves gives its entry back.
    remotes.remove(3);
    expect(remotes.looks().variants).toBe(8);
    crowd.dispose();
  });

  it('draws a character file by its own crowd once loaded, the humanoid meanwhile, and keeps the humanoid (with the reason) on a refusal', async () => {
    const crowd = new Crowd({ template: humanoidTemplate(), variants: HUMANOID_CROWD_VARIANTS });
    const scene = new Scene();
    const built: Crowd[] = [];
    let finish!: (template: CrowdTemplate) => void;
    const pending = new Promise<CrowdTemplate>((resolve) => (finish = resolve));
    const remotes = new RemoteAvatars<number>({
      maxModels: 2,
      loadModel: (url) => (url.endsWith('mannequin.glb') ? pending : Promise.reject(new Error('bad.glb: HTTP 404'))),
    });
    remotes.attach(crowd, {
      createCrowd: (template) => {
        const c = new Crowd({ template, capacity: 8 });
        built.push(c);
        return c;
      },
      parent: scene,
    });
    const url = 'https://models.example/mannequin.glb';
    remotes.update(1, at(1));
    remotes.setLook(1, { kind: 'model', url });
    remotes.update(2, at(2));
    remotes.setLook(2, { kind: 'model', url: 'https://models.example/bad.glb' });
    remotes.update(3, at(3));
    // Loading: the humanoid stands in.
    expect(remotes.templateOf(1)).toBe('humanoid');
    expect(remotes.looks()).toMatchObject({ templates: 1, standIns: 2 });
    expect(remotes.looks().loading).toContain(url);
    finish(await loadCrowdTemplateFromBytes(bytesOf(MANNEQUIN_CM), url, 'mannequin-cm.glb', { targetHeight: 1.8 }));
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(built).toHaveLength(1);
    expect(scene.children).toContain(built[0]!.object);
    expect(remotes.templateOf(1)).toBe(url);
    expect(built[0]!.count).toBe(1);
    expect(crowd.count).toBe(2);
    remotes.step(0.016, camera());
    crowd.update(0.016, camera());
    const looks = remotes.looks();
    expect(looks.templates).toBe(2);
    expect(looks.drawCallsPerPass).toBe(3 + built[0]!.renderer.drawCallsPerPass);
    expect(looks.refused).toEqual({ 'https://models.example/bad.glb': 'bad.glb: HTTP 404' });
    expect(looks.standIns).toBe(1);
    // More distinct files than maxModels: refused, drawn as the humanoid.
    remotes.update(4, at(4));
    remotes.setLook(4, { kind: 'model', url: 'https://models.example/third.glb' });
    remotes.update(5, at(5));
    remotes.setLook(5, { kind: 'model', url: 'https://models.example/fourth.glb' });
    expect(remotes.looks().refused['https://models.example/fourth.glb']).toMatch(/more than 2 character files/);
    // Back to a humanoid look: back in the humanoid crowd.
    remotes.setLook(1, humanoid(3));
    expect(remotes.templateOf(1)).toBe('humanoid');
    expect(built[0]!.count).toBe(0);
    remotes.dispose();
    crowd.dispose();
  });
});

describe('a look chosen before the crowd exists (bug repro: a profile arriving before the page built its crowd)', () => {
  it('loads the file once a crowd with a host is attached, and refuses it only for a crowd without one', async () => {
    const url = 'https://models.example/mannequin.glb';
    const template = await loadCrowdTemplateFromBytes(bytesOf(MANNEQUIN_CM), url, 'mannequin-cm.glb', { targetHeight: 1.8 });
    const asked: string[] = [];
    const remotes = new RemoteAvatars<number>({
      loadModel: (wanted) => {
        asked.push(wanted);
        return Promise.resolve(template);
      },
    });
    // The profile comes first, then the first frame, with no crowd yet.
    remotes.setLook(1, { kind: 'model', url });
    remotes.update(1, at(1));
    expect(remotes.looks().refused).toEqual({});
    expect(asked).toEqual([]);
    const crowd = new Crowd({ template: humanoidTemplate(), variants: HUMANOID_CROWD_VARIANTS });
    const built: Crowd[] = [];
    remotes.attach(crowd, {
      createCrowd: (t) => {
        const c = new Crowd({ template: t, capacity: 4 });
        built.push(c);
        return c;
      },
      parent: new Scene(),
    });
    expect(asked).toEqual([url]);
    // Its next frame places it: the humanoid stands in until the file's crowd is built.
    remotes.update(1, at(1));
    expect(remotes.templateOf(1)).toBe('humanoid');
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(remotes.templateOf(1)).toBe(url);
    expect(remotes.looks().refused).toEqual({});
    remotes.dispose();
    crowd.dispose();

    // A crowd without a host draws everyone as itself, and says so.
    const plain = new RemoteAvatars<number>({ loadModel: () => Promise.resolve(template) });
    plain.setLook(1, { kind: 'model', url });
    const own = new Crowd({ template: humanoidTemplate() });
    plain.attach(own);
    expect(plain.looks().refused).toEqual({ [url]: 'this crowd draws everyone as its own character' });
    plain.dispose();
    own.dispose();
  });
});

describe('character files of other players', () => {
  let server: Server;
  let origin: string;
  const headers = new Map<string, string>();
  beforeAll(async () => {
    server = createServer((request, response) => {
      headers.set(request.url ?? '', JSON.stringify({ cookie: request.headers.cookie ?? null, referer: request.headers.referer ?? null }));
      if (request.url === '/mannequin-cm.glb') return response.end(MANNEQUIN_CM);
      if (request.url === '/declared-huge.glb') {
        response.writeHead(200, { 'content-length': String(64 * 1024 * 1024) });
        return response.end(Buffer.alloc(16));
      }
      if (request.url === '/endless.glb') {
        // No length: a stream that would not stop (the reader must give up at the cap).
        response.writeHead(200, { 'content-type': 'model/gltf-binary' });
        const chunk = Buffer.alloc(64 * 1024);
        const timer = setInterval(() => response.write(chunk), 1);
        response.on('close', () => clearInterval(timer));
        return;
      }
      if (request.url === '/silent.glb') return; // never answers
      if (request.url === '/trickle.glb') {
        // A byte every 50 ms: far under the byte cap, and never done.
        response.writeHead(200, { 'content-type': 'model/gltf-binary' });
        const timer = setInterval(() => response.write(Buffer.alloc(1)), 50);
        response.on('close', () => clearInterval(timer));
        return;
      }
      response.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('loads a real file, standing a centimetre-scale character as tall as a person, without cookies or referrer', async () => {
    const template = await loadRemoteTemplate(`${origin}/mannequin-cm.glb`);
    const height = template.bounds.max.y - Math.min(0, template.bounds.min.y);
    expect(height).toBeGreaterThan(1.6);
    expect(height).toBeLessThan(1.9);
    expect(JSON.parse(headers.get('/mannequin-cm.glb')!)).toEqual({ cookie: null, referer: null });
    template.dispose();
  });

  it('refuses a file over the byte cap (declared or streamed) and over the vertex cap, saying why', async () => {
    const refusal = (path: string, limits = {}) =>
      loadRemoteTemplate(`${origin}${path}`, { maxBytes: 256 * 1024, ...limits }).then(
        () => 'loaded',
        (error: Error) => error.message,
      );
    expect(await refusal('/declared-huge.glb')).toMatch(/64\.0 MiB is over the 256 KiB cap/);
    expect(await refusal('/endless.glb')).toMatch(/more than the 256 KiB cap/);
    expect(await refusal('/mannequin-cm.glb', { maxBytes: 16 * 1024 * 1024, maxVertices: 500 })).toMatch(/vertices, over the 500 cap/);
    expect(await refusal('/missing.glb')).toMatch(/HTTP 404/);
  });

  it('gives up on a host that never answers, or trickles a file, at the time cap', async () => {
    const refusal = (path: string) =>
      loadRemoteTemplate(`${origin}${path}`, { timeoutMs: 400 }).then(
        () => 'loaded',
        (error: Error) => error.message,
      );
    expect(await refusal('/silent.glb')).toMatch(/silent\.glb: not loaded within 0\.4 s/);
    expect(await refusal('/trickle.glb')).toMatch(/trickle\.glb: not loaded within 0\.4 s/);
  });
});
