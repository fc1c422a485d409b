import { Group, InstancedMesh, Matrix4, Mesh } from 'three';
import type { Stage } from '../src/world/stage.ts';
import type { ScatterTool } from '../src/scatter/scatter-tool.ts';
import { writePlacementMatrix } from '../src/scatter/transform.ts';

/**
 * Benchmark helpers for the scatter page (loaded only with ?bench=1; driven by
 * bench/scatter/draw-calls.bench.ts). They build two peers of the same instances for a
 * side-by-side figure: a naive scene (one Mesh per instance part, full detail) and instancing
 * without LOD (one InstancedMesh per prop part, full detail).
 */
export interface ScatterBench {
  /** Paints dabs along a serpentine path around (cx, cz) until `target` instances or `maxDabs`. */
  paintSession(cx: number, cz: number, target: number, maxDabs?: number): Promise<number>;
  /** Shows one of the three paths. */
  show(path: 'scatter' | 'naive' | 'instanced-no-lod'): void;
  /** Renders `frames` frames and reports draw calls and frames per second over them. */
  measure(frames: number): Promise<{ fps: number; msPerFrame: number; drawCalls: number; triangles: number }>;
}

export function createScatterBench(stage: Stage, tool: ScatterTool): ScatterBench {
  const { layer } = tool;
  const peers = new Map<string, Group>();

  const buildPeers = (): void => {
    for (const group of peers.values()) {
      stage.scene.remove(group);
      group.traverse((o) => (o as InstancedMesh).isInstancedMesh && (o as InstancedMesh).dispose());
    }
    peers.clear();
    const naive = new Group();
    const instanced = new Group();
    const byProp = new Map<string, ReturnType<typeof layer.snapshot>>();
    for (const p of layer.snapshot()) {
      if (!p.rendered) continue;
      const list = byProp.get(p.propId) ?? [];
      list.push(p);
      byProp.set(p.propId, list);
    }
    const matrix = new Matrix4();
    for (const [propId, placements] of byProp) {
      const prop = layer.catalog.get(propId)!;
      for (const part of prop.parts) {
        const mesh = new InstancedMesh(part.levels[0]!, part.material, placements.length);
        placements.forEach((p, i) => {
          writePlacementMatrix(p, matrix.elements);
          mesh.setMatrixAt(i, matrix);
          const single = new Mesh(part.levels[0]!, part.material);
          single.matrixAutoUpdate = false;
          single.matrix.copy(matrix);
          single.castShadow = part.castShadow;
          naive.add(single);
        });
        mesh.castShadow = part.castShadow;
        mesh.computeBoundingSphere();
        instanced.add(mesh);
      }
    }
    peers.set('naive', naive);
    peers.set('instanced-no-lod', instanced);
    for (const group of peers.values()) {
      group.visible = false;
      stage.scene.add(group);
    }
  };

  return {
    async paintSession(cx, cz, target, maxDabs = 400) {
      let dabs = 0;
      for (let ring = 0; dabs < maxDabs && layer.stats.instances < target; ring++) {
        const radius = 12 + ring * 9;
        const steps = Math.max(6, Math.round((2 * Math.PI * radius) / 9));
        for (let i = 0; i < steps && layer.stats.instances < target; i++, dabs++) {
          const a = (i / steps) * Math.PI * 2;
          layer.paint(cx + Math.cos(a) * radius, cz + Math.sin(a) * radius, 10);
        }
      }
      await layer.whenIdle();
      buildPeers();
      return dabs;
    },
    show(path) {
      layer.object.visible = path === 'scatter';
      for (const [name, group] of peers) group.visible = name === path;
    },
    async measure(frames) {
      await stage.frames(2);
      const start = performance.now();
      const first = stage.frameStats.frame;
      let drawCalls = 0;
      let triangles = 0;
      const off = stage.afterRender(() => {
        drawCalls = Math.max(drawCalls, stage.renderer.info.render.drawCalls);
        triangles = Math.max(triangles, stage.renderer.info.render.triangles);
      });
      await stage.frames(frames);
      off();
      const ms = (performance.now() - start) / (stage.frameStats.frame - first);
      return { fps: 1000 / ms, msPerFrame: ms, drawCalls, triangles };
    },
  };
}
