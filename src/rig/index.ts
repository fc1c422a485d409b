/**
 * cairn-world/rig: skeleton definitions, the body builder, the procedural humanoid and its clips,
 * and the import layer (glTF/GLB, FBX, BVH).
 *
 * @module rig
 */
export * from './skeleton-def.ts';
export * from './mannequin.ts';
export * from './tube.ts';
export * from './body-kit.ts';
export * from './humanoid-body.ts';
export * from './face-morphs.ts';
export * from './pose.ts';
export * from './clips.ts';
export * from './humanoid.ts';
export * from './humanoid-variants.ts';
export * from './load.ts';
