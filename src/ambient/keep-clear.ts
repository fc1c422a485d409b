/**
 * Keeps ambient people out of the player's way (pure): anyone closer than `radius` to the player
 * is moved out to the edge of that disk along the line from the player, so a crowd parts around
 * someone walking through it instead of being walked through. Returns how many were moved.
 */
export interface Movable {
  x: number;
  y: number;
  z: number;
}

/** `height(x, z)` puts a moved person back on the ground. */
export function keepClear(
  people: readonly Movable[],
  x: number,
  z: number,
  radius: number,
  height: (x: number, z: number) => number,
): number {
  let moved = 0;
  for (const person of people) {
    const dx = person.x - x;
    const dz = person.z - z;
    const distance = Math.hypot(dx, dz);
    if (distance >= radius) continue;
    // Someone standing exactly on the player steps east; otherwise straight out.
    const ux = distance > 1e-6 ? dx / distance : 1;
    const uz = distance > 1e-6 ? dz / distance : 0;
    person.x = x + ux * radius;
    person.z = z + uz * radius;
    person.y = height(person.x, person.z);
    moved++;
  }
  return moved;
}
