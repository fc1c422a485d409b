import {
  Color,
  DirectionalLight,
  Fog,
  HemisphereLight,
  Mesh,
  MeshStandardMaterial,
  Path,
  PlaneGeometry,
  Shape,
  ShapeGeometry,
  Vector3,
  type Scene,
} from 'three';
import { BIOME_COLORS } from './terrain/biome.ts';
import { SkyMesh } from 'three/addons/objects/SkyMesh.js';

/** The world's sky, sun, fill light, fog and water ({@link createEnvironment}). */
export interface Environment {
  /** The sun: a directional light with a shadow map that follows the player. */
  sun: DirectionalLight;
  /** The water plane at the water level. */
  water: Mesh;
  /** The sky dome, lit from the sun's direction. */
  sky: SkyMesh;
  /** Keeps the sun's shadow frustum centred on `focus` (call once per frame). */
  follow(focus: Vector3): void;
  /** Removes everything the environment added to the scene and frees its GPU resources. */
  dispose(): void;
}

/** Direction towards the sun: afternoon light from the south-west, high enough for short shadows. */
const SUN_DIRECTION = new Vector3(-0.45, 0.78, 0.42).normalize();

/**
 * The world's lights (linear RGB): a hemisphere fill (sky above, ground below) and the sun. Props
 * are judged against them (tests/unit/scatter/canopy-light.test.ts: trees lit as trees).
 */
export const WORLD_LIGHTS = {
  /** The fill light: sky colour from above, ground colour from below. */
  hemisphere: {
    /** Colour from above (linear RGB). */
    sky: [0.62, 0.74, 0.95],
    /** Colour from below (linear RGB). */
    ground: [0.32, 0.27, 0.2],
    /** Intensity (three's units). */
    intensity: 1.1,
  },
  /** The sun, a directional light. */
  sun: {
    /** Colour (linear RGB). */
    color: [1, 0.95, 0.86],
    /** Intensity (three's units). */
    intensity: 3.4,
    /** Unit vector towards the sun (x, y, z): from the south-west, high. */
    direction: [SUN_DIRECTION.x, SUN_DIRECTION.y, SUN_DIRECTION.z],
  },
} as const;

/** Edge of the sea and seabed planes, metres: beyond the camera's far plane (5 km) from anywhere on the map. */
const SEA_SIZE = 12_000;
/** Sea floor below the water level beyond the terrain, metres: where the terrain's sea floor lies. */
const SEABED_DEPTH = 5;

/**
 * Sky, sun (with a shadow map that follows the player), hemisphere fill light, fog and a water
 * plane at the heightmap's water level with a sea floor around the terrain (`terrainSize` metres square).
 */
export function createEnvironment(scene: Scene, waterLevel: number, terrainSize = 512): Environment {
  const sky = new SkyMesh();
  sky.scale.setScalar(4500);
  sky.turbidity.value = 3;
  sky.rayleigh.value = 1.2;
  sky.sunPosition.value.copy(SUN_DIRECTION);
  sky.name = 'sky';
  scene.add(sky);

  const horizon = new Color(0.62, 0.72, 0.82);
  scene.fog = new Fog(horizon, 220, 1100);

  const { hemisphere: fill, sun: light } = WORLD_LIGHTS;
  const hemisphere = new HemisphereLight(new Color(...fill.sky), new Color(...fill.ground), fill.intensity);
  scene.add(hemisphere);

  const sun = new DirectionalLight(new Color(...light.color), light.intensity);
  sun.name = 'sun';
  sun.castShadow = true;
  sun.shadow.mapSize.set(2048, 2048);
  const extent = 36;
  Object.assign(sun.shadow.camera, { left: -extent, right: extent, top: extent, bottom: -extent, near: 1, far: 260 });
  sun.shadow.bias = -0.0004;
  sun.shadow.normalBias = 0.03;
  scene.add(sun, sun.target);

  const waterMaterial = new MeshStandardMaterial({
    color: new Color(0.07, 0.24, 0.34),
    roughness: 0.12,
    metalness: 0.05,
    transparent: true,
    opacity: 0.82,
  });
  waterMaterial.name = 'water';
  // The sea reaches past the camera's far plane, so its edge never shows at the horizon.
  const water = new Mesh(new PlaneGeometry(SEA_SIZE, SEA_SIZE), waterMaterial);
  water.name = 'water';
  water.rotation.x = -Math.PI / 2;
  water.position.y = waterLevel;
  water.receiveShadow = true;
  scene.add(water);

  // An opaque sea floor around the terrain, level with the terrain's own sea floor and in its
  // colour: the water is translucent, and past the terrain's edge it would otherwise show the
  // sky's lower half through it — a hard grey band between sea and sky looking south.
  const seabedMaterial = new MeshStandardMaterial({ color: new Color(...BIOME_COLORS.seabed), roughness: 1, metalness: 0 });
  seabedMaterial.name = 'seabed';
  const outline = new Shape()
    .moveTo(-SEA_SIZE / 2, -SEA_SIZE / 2)
    .lineTo(SEA_SIZE / 2, -SEA_SIZE / 2)
    .lineTo(SEA_SIZE / 2, SEA_SIZE / 2)
    .lineTo(-SEA_SIZE / 2, SEA_SIZE / 2);
  const half = terrainSize / 2;
  outline.holes.push(new Path().moveTo(-half, -half).lineTo(-half, half).lineTo(half, half).lineTo(half, -half));
  const seabed = new Mesh(new ShapeGeometry(outline), seabedMaterial);
  seabed.name = 'seabed';
  // The shape lies in XY; turned flat, its y becomes −z (the hole is symmetric, so that is fine).
  seabed.rotation.x = -Math.PI / 2;
  seabed.position.y = waterLevel - SEABED_DEPTH;
  scene.add(seabed);

  return {
    sun,
    water,
    sky,
    follow(focus) {
      sun.target.position.copy(focus);
      sun.position.copy(focus).addScaledVector(SUN_DIRECTION, 120);
    },
    dispose() {
      water.geometry.dispose();
      waterMaterial.dispose();
      seabed.geometry.dispose();
      seabedMaterial.dispose();
      scene.remove(sky, hemisphere, sun, sun.target, water, seabed);
    },
  };
}
