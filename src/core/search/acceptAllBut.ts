// A search's `accept` filter that turns away only a few names. An index that knows it (rejectedNames) counts a page's
// matches without calling the filter once per match: a common keyword matches nearly every tool, and a cold isolate's
// first search runs those calls in code not compiled yet.

/** What acceptAllBut's filters turn away, by filter. */
const rejectedByFilter = new WeakMap<(name: string) => boolean, ReadonlySet<string>>();

/** A filter that keeps every name but `names` (copied: later changes to them do not change it). */
export function acceptAllBut(names: Iterable<string>): (name: string) => boolean {
  const rejected: ReadonlySet<string> = new Set(names);
  const [only] = rejected;
  // One name (search_tools, most often) is compared, not hashed: an index that does not know the filter asks it of
  // many names, each hashed on its first lookup in a set.
  const accept = rejected.size === 1 && only !== undefined ? (name: string): boolean => name !== only : (name: string): boolean => !rejected.has(name);
  rejectedByFilter.set(accept, rejected);
  return accept;
}

/** The names `accept` turns away when acceptAllBut made it (it keeps every other name); undefined for any other filter. */
export function rejectedNames(accept: (name: string) => boolean): ReadonlySet<string> | undefined {
  return rejectedByFilter.get(accept);
}
