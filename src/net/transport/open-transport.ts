import { BroadcastTransport, type BroadcastTransportOptions } from './broadcast-transport.ts';
import type { FrameTransport } from './transport.ts';
import { WebSocketTransport, type WebSocketTransportOptions } from './websocket-transport.ts';

/** Options shared by both transports (each uses what applies to it). */
export type OpenTransportOptions = Omit<Partial<WebSocketTransportOptions>, 'url'> & Omit<Partial<BroadcastTransportOptions>, 'channel'>;

/**
 * Opens a transport from one string, so moving between them is a one-line change:
 * - `broadcast:NAME` — a BroadcastChannel between tabs of this browser;
 * - `ws://…` / `wss://…` — the relay at that URL;
 * - `/rooms/avatar/NAME` (a path) — the relay on this page's origin (ws: or wss: to match http: or https:).
 */
export function openTransport(target: string, options: OpenTransportOptions = {}): FrameTransport {
  if (target.startsWith('broadcast:')) {
    const channel = target.slice('broadcast:'.length);
    if (!channel) throw new Error('openTransport: "broadcast:" needs a channel name, e.g. broadcast:lobby');
    return new BroadcastTransport({ ...options, channel });
  }
  return new WebSocketTransport({ ...options, url: relayUrl(target) });
}

/** A relay target as a ws:// or wss:// URL: one already, or a /path on this page's origin (ws: or wss: to match http: or https:). */
export function relayUrl(target: string): string {
  if (/^wss?:\/\//.test(target)) return target;
  if (target.startsWith('/')) {
    if (typeof location === 'undefined')
      throw new Error(`openTransport: "${target}" is a path, but there is no page origin here; pass a ws:// URL`);
    const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
    return `${scheme}//${location.host}${target}`;
  }
  throw new Error(`openTransport: "${target}" is neither broadcast:NAME, a ws:// or wss:// URL, nor a /path on this origin`);
}

/** The relay path of an avatar room. */
export function avatarRoomPath(room: string): string {
  return `/rooms/avatar/${encodeURIComponent(room)}`;
}
