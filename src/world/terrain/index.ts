export * from './heightmap.ts';
export * from './noise.ts';
export * from './generate.ts';
export * from './biome.ts';
