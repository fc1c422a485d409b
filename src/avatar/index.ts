/**
 * cairn-world/avatar: the local player's character — Cairn's procedural humanoid, or a character file
 * (glTF, GLB, FBX) with its own clips where their names match and Cairn's clip library retargeted
 * onto it for the rest, sized to a person when its file's size is implausible. A `PlayerAvatar` is
 * a world's `PlayerCharacter` (`world.player.setCharacter(avatar)`).
 *
 * @module avatar
 */
export * from './player-avatar.ts';
export * from './avatar-clips.ts';
export * from './avatar-height.ts';
export * from './avatar-report.ts';
