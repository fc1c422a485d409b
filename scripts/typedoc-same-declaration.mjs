/**
 * A TypeDoc plugin (typedoc.json `plugin`) that drops one false warning: "X has multiple
 * declarations with a comment" when every declaration it lists is the same line. A type inferred
 * from a valibot schema (`v.InferOutput<typeof Schema>`) reaches each field through several mapped
 * types, and TypeScript lists the field's one declaration once per mapped type; TypeDoc counts
 * them as rivals (TypeStrong/typedoc#2358). A warning that lists two different places still shows.
 */

import { Converter } from 'typedoc';

const WARNING = /has multiple declarations with a comment/;
const LOCATIONS = /The comments for .+ are declared at:\n((?:\s*\S+:\d+\n?)+)$/;

/** @param {import('typedoc').Application} app */
export function load(app) {
  const logger = app.logger;
  const log = logger.log.bind(logger);
  /** @type {[string, number] | null} */
  let held = null;
  const flush = () => {
    if (held) log(...held);
    held = null;
  };
  logger.log = (message, level) => {
    if (held) {
      const places = LOCATIONS.exec(message)?.[1];
      if (places && new Set(places.trim().split(/\s+/)).size === 1) {
        held = null;
        return;
      }
      flush();
    }
    if (WARNING.test(message)) held = [message, level];
    else log(message, level);
  };
  // The warning is held until the message after it says where; nothing may stay held past the conversion.
  app.converter.on(Converter.EVENT_END, flush);
}
