/**
 * cairn-world/net: avatar sync — the 36-byte protocol, transports, the peer table and the session
 * glue.
 *
 * @module net
 */
export * from './protocol/frame.ts';
export * from './protocol/message.ts';
export * from './protocol/control.ts';
export * from './protocol/profile.ts';
export * from './protocol/room-name.ts';
export * from './transport/transport.ts';
export * from './transport/websocket-transport.ts';
export * from './transport/broadcast-transport.ts';
export * from './transport/open-transport.ts';
export * from './transport/fallback-transport.ts';
export * from './world/directory-client.ts';
export * from './world/cell-sockets.ts';
export * from './peers/remote-peer.ts';
export * from './peers/peer-table.ts';
export * from './peers/local-publisher.ts';
export * from './view/remote-peer-view.ts';
export * from './view/humanoid-peer-view.ts';
export * from './view/crowd-peer-view.ts';
export * from './view/name-tags.ts';
export * from './net-session.ts';
export * from './protocol/world.ts';
export * from './world/cell-tracker.ts';
export * from './world/hearing.ts';
export * from './world/world-transport.ts';
export * from './tab-session.ts';
