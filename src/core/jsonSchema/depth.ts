// How deeply a JSON value nests, found without recursion: a value nested thousands of levels deep must not
// overflow the stack of whoever checks it.

/**
 * The path to the first object or array that lies deeper than `maxDepth` levels (the value itself, when it is an
 * object or array, is level 1), or undefined when the value stays within. Linear in the size of the value.
 */
export function pathDeeperThan(value: unknown, maxDepth: number): (string | number)[] | undefined {
  interface Entry {
    node: unknown;
    depth: number;
    parent: Entry | undefined;
    key: string | number;
  }
  const stack: Entry[] = [{ node: value, depth: 1, parent: undefined, key: "" }];
  for (let entry = stack.pop(); entry !== undefined; entry = stack.pop()) {
    const { node, depth } = entry;
    if (typeof node !== "object" || node === null) continue;
    if (depth > maxDepth) {
      const path: (string | number)[] = [];
      for (let at: Entry | undefined = entry; at?.parent !== undefined; at = at.parent) path.push(at.key);
      return path.toReversed();
    }
    if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i--) {
        const child: unknown = node[i];
        if (typeof child === "object" && child !== null) stack.push({ node: child, depth: depth + 1, parent: entry, key: i });
      }
    } else {
      const entries = Object.entries(node);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, child] = entries[i] ?? ["", null];
        if (typeof child === "object" && child !== null) stack.push({ node: child, depth: depth + 1, parent: entry, key });
      }
    }
  }
  return undefined;
}
