import { CircleGeometry, Color, Mesh, MeshStandardMaterial, Vector3, type Object3D, type PerspectiveCamera, type Scene } from 'three';
import { RoomEnvironment } from 'three/addons/environments/RoomEnvironment.js';
import { PMREMGenerator, type WebGPURenderer } from 'three/webgpu';
import { modelBounds } from './placement.ts';

/** The model viewer's lighting and floor. */
export interface Studio {
  /** The floor disc under the model. */
  floor: Mesh;
  /** Removes the lights and floor and frees them and the environment map. */
  dispose(): void;
}

/**
 * Neutral studio lighting for any model, with no per-asset tuning: image-based light from three's
 * RoomEnvironment (pre-filtered once with PMREM) and the renderer's ACES tone mapping, which
 * Cairn's renderer bootstrap already sets. Adds a dark floor disc at y = 0.
 */
export function createStudio(renderer: WebGPURenderer, scene: Scene): Studio {
  const pmrem = new PMREMGenerator(renderer);
  const room = new RoomEnvironment();
  const environment = pmrem.fromScene(room, 0.04);
  room.dispose();
  scene.environment = environment.texture;
  scene.background = new Color(0x2a3440);
  const floor = new Mesh(new CircleGeometry(6, 64).rotateX(-Math.PI / 2), new MeshStandardMaterial({ color: 0x3b4652, roughness: 0.95 }));
  floor.name = 'studio floor';
  scene.add(floor);
  return {
    floor,
    dispose() {
      scene.remove(floor);
      floor.geometry.dispose();
      (floor.material as MeshStandardMaterial).dispose();
      scene.environment = null;
      environment.dispose();
      pmrem.dispose();
    },
  };
}

const center = new Vector3();
const size = new Vector3();

/**
 * Points the camera at `root` from a three-quarter view, far enough that its bounding sphere fits
 * the view. Returns the point it looks at (for orbit controls' target).
 */
export function frameObject(camera: PerspectiveCamera, root: Object3D, direction = new Vector3(0.75, 0.55, 1)): Vector3 {
  const bounds = modelBounds(root);
  bounds.getCenter(center);
  bounds.getSize(size);
  const radius = Math.max(0.05, size.length() / 2);
  const fov = (camera.fov * Math.PI) / 180;
  const fitFov = Math.min(fov, 2 * Math.atan(Math.tan(fov / 2) * Math.min(1, camera.aspect)));
  const distance = (radius / Math.sin(fitFov / 2)) * 1.35;
  camera.position.copy(center).addScaledVector(direction.clone().normalize(), distance);
  camera.near = Math.max(0.01, distance / 100);
  camera.far = distance * 100;
  camera.updateProjectionMatrix();
  camera.lookAt(center);
  return center.clone();
}
