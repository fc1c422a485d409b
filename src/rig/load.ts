/** Model loading for characters and mocap: see src/rig/import/ (one import path for every format). */
export * from './import/errors.ts';
export * from './import/import-model.ts';
