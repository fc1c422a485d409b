/**
 * cairn-world/avatar: the local player's character — Cairn's procedural humanoid, or a character file
 * (glTF, GLB, FBX) with its own clips where their names match and Cairn's clip library retargeted
 * onto it for the rest, sized to a person when its file's size is implausible. A `PlayerAvatar` is
 * a world's `PlayerCharacter` (`world.player.setCharacter(avatar)`).
 * How the player looks to others (a name, a humanoid variant or a file) is a `LookChoice`, edited
 * in a `LookPanel` and shared as a profile (look.ts).
 *
 * @module avatar
 */
export * from './player-avatar.ts';
export * from './avatar-clips.ts';
export * from './avatar-height.ts';
export * from './avatar-report.ts';
export * from './look.ts';
export * from './look-panel.ts';
