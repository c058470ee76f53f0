/** Postgres's type id of `timestamp with time zone`. */
export const TIMESTAMPTZ_OID = 1184;

/** `2026-11-28 11:24:00.123456+00`: a UTC session's text of a timestamp of years 1000 to 9999. */
const UTC_TEXT = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})(\.\d{1,6})?\+00$/;

/**
 * A `timestamptz` parser giving, for the text a UTC session sends, the string its Date would be
 * in JSON (`toJSON`: `2026-11-28T11:24:00.123Z`, the milliseconds truncated as `Date.UTC` truncates
 * them after postgres-date's `1000 * parseFloat(fraction)`), without making the Date. Any other
 * text (another zone, BC, infinity, a five-digit year) is handed to `parse`, whose value
 * serialises the same. Rows read this way are for answering as JSON as they are: a page of a list
 * with two timestamps a row spent most of its `JSON.stringify` calling `Date.prototype.toJSON`.
 */
export function jsonTimestampParser(parse: (text: string) => unknown): (text: string) => unknown {
  return (text) => {
    const match = UTC_TEXT.exec(text);
    if (!match || match[1]! < '1000') return parse(text);
    const fraction = match[3];
    const ms = fraction ? Math.trunc(1000 * parseFloat(fraction)) : 0;
    return `${match[1]}T${match[2]}.${ms < 10 ? '00' : ms < 100 ? '0' : ''}${ms}Z`;
  };
}
