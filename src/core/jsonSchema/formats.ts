// The `format` values that are checked: cheap ones, each linear in the string (plain code, or regular expressions
// without nested or overlapping repetition). Every other format is an annotation, as JSON Schema allows.

import { hasHiddenCharacters } from "../boundary/hiddenCharacters.ts";

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIME = /^(\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;
const UUID = /^[0-9A-Fa-f]{8}-(?:[0-9A-Fa-f]{4}-){3}[0-9A-Fa-f]{12}$/;
const IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;
const URI_SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function isDate(text: string): boolean {
  const match = DATE.exec(text);
  if (!match) return false;
  const year = Number(match[1]);
  const month = Number(match[2]);
  const day = Number(match[3]);
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1];
  return days !== undefined && day >= 1 && day <= days;
}

function isTime(text: string): boolean {
  const match = TIME.exec(text);
  if (!match) return false;
  const [hour, minute, second, offsetHour, offsetMinute] = [match[1], match[2], match[3], match[5], match[6]].map(Number);
  // A leap second (60) is let through at any minute: which minute it may end is a table, not a format.
  return hour !== undefined && hour <= 23 && minute !== undefined && minute <= 59 && second !== undefined && second <= 60 &&
    (match[4] === undefined || (offsetHour !== undefined && offsetHour <= 23 && offsetMinute !== undefined && offsetMinute <= 59));
}

function isDateTime(text: string): boolean {
  const separator = text.search(/[Tt ]/);
  return separator === 10 && isDate(text.slice(0, 10)) && isTime(text.slice(11));
}

/** One "@", something before it, a dotted domain without white space after it. */
function isEmail(text: string): boolean {
  const at = text.lastIndexOf("@");
  if (at < 1 || at > 64 || text.length - at - 1 > 253 || /\s/.test(text)) return false;
  const domain = text.slice(at + 1);
  return !text.slice(0, at).includes("@") && /^[^.@][^@]*\.[^.@]+$/.test(domain) && !domain.includes("..");
}

/** A scheme, a colon, then no white space or control character (RFC 3986 in its cheapest outline). */
function isUri(text: string): boolean {
  if (!URI_SCHEME.test(text)) return false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code <= 0x20 || code === 0x7f) return false;
  }
  return !/\s/.test(text);
}

const FORMATS: Readonly<Record<string, (text: string) => boolean>> = {
  date: isDate,
  time: isTime,
  "date-time": isDateTime,
  email: isEmail,
  uri: isUri,
  uuid: (text) => UUID.test(text),
  ipv4: (text) => IPV4.test(text),
};

/** The check of a format, or undefined when it is only an annotation. */
export function formatCheck(format: string): ((text: string) => boolean) | undefined {
  if (!Object.hasOwn(FORMATS, format)) return undefined;
  const check = FORMATS[format];
  // A hidden character (core/boundary/hiddenCharacters.ts) belongs in no checked format, and could make a value read
  // otherwise than it is: `boss\u200B@corp.example` looks like `boss@corp.example`.
  return check === undefined ? undefined : (text) => !hasHiddenCharacters(text) && check(text);
}
