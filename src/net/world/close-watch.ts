import { CLOSE_WATCH_RADIUS, CLOSE_WATCH_RELEASE } from '../protocol/world.ts';

/**
 * Whether a player watching a neighbouring cell should ask it for every tick (`pace` close),
 * given the distance (m) from the player to that cell's square and what it asked last: close
 * within {@link CLOSE_WATCH_RADIUS}, paced again only beyond {@link CLOSE_WATCH_RELEASE}, so
 * walking along the edge of the band sends no stream of commands. Pure.
 */
export function wantsCloseWatch(wasClose: boolean, distance: number): boolean {
  return wasClose ? distance <= CLOSE_WATCH_RELEASE : distance <= CLOSE_WATCH_RADIUS;
}
