import { CloseCode } from '../../src/net/protocol/control.ts';
import { cellDistance, sameCell, type Cell, type CellRole } from '../../src/net/protocol/world.ts';
import { verifyToken, type TokenClaims } from './token.ts';

export type GateResult = { ok: true; claims: TokenClaims } | { ok: false; code: number; reason: string };

/**
 * A world cell's door: checks an identity token against the cell and the role asked for. A
 * client may publish only in the cell its token names, and watch only the 3×3 around it — so a
 * client cannot subscribe to cells far from where it stands, nor publish in several at once.
 */
export class CellGate {
  private key: Promise<CryptoKey> | null = null;

  readonly cell: Cell;
  private readonly loadKey: () => Promise<CryptoKey>;

  constructor(
    cell: Cell,
    /** The world token key (the cell's KeyRing: its own storage, else the directory). */
    loadKey: () => Promise<CryptoKey>,
  ) {
    this.cell = cell;
    this.loadKey = loadKey;
  }

  async check(token: string | null, role: CellRole, now: number): Promise<GateResult> {
    if (!token) return { ok: false, code: CloseCode.badToken, reason: 'world cells need ?token= from POST /api/world/enter' };
    this.key ??= this.loadKey();
    let key: CryptoKey;
    try {
      key = await this.key;
    } catch (error) {
      this.key = null;
      return { ok: false, code: 1011, reason: `cell cannot check tokens now: ${(error as Error).message}` };
    }
    const verified = await verifyToken(key, token, now);
    if (!verified.ok) return { ok: false, code: verified.expired ? CloseCode.expired : CloseCode.badToken, reason: verified.reason };
    const claims = verified.claims;
    if (role === 'pub' && !sameCell(claims.cell, this.cell)) {
      return {
        ok: false,
        code: CloseCode.tooFar,
        reason: `token is for cell ${claims.cell.x}:${claims.cell.z}; publish only where you stand`,
      };
    }
    if (cellDistance(claims.cell, this.cell) > 1) {
      return {
        ok: false,
        code: CloseCode.tooFar,
        reason: `cell ${this.cell.x}:${this.cell.z} is not in the 3×3 around ${claims.cell.x}:${claims.cell.z}`,
      };
    }
    return { ok: true, claims };
  }
}
