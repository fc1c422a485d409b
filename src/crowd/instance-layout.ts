/**
 * The per-instance record the crowd shader reads, 12 floats (three vec4) per drawn avatar:
 *
 * | vec4 | x            | y            | z             | w                               |
 * |------|--------------|--------------|---------------|---------------------------------|
 * | 0    | position x   | position y   | position z    | facing (radians, atan2(wx, wz)) |
 * | 1    | clip row 0   | clip row 1   | blend 0→1     | weight of the previous clip     |
 * | 2    | prev. row 0  | prev. row 1  | blend 0→1     | live slot, or -1 when baked     |
 *
 * Rows index the baked-pose table. A live avatar (slot ≥ 0) reads its bones from the live buffer
 * and ignores the rows. Pure data layout: no three.js.
 */
export const INSTANCE_FLOATS = 12;

export const enum InstanceField {
  X = 0,
  Y = 1,
  Z = 2,
  Facing = 3,
  Row0 = 4,
  Row1 = 5,
  Blend = 6,
  PreviousWeight = 7,
  PreviousRow0 = 8,
  PreviousRow1 = 9,
  PreviousBlend = 10,
  LiveSlot = 11,
}
