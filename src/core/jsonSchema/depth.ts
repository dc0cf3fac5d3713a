// How deeply a JSON value nests, found without recursion: a value nested thousands of levels deep must not
// overflow the stack of whoever checks it.
import { isRecord } from "../records.ts";

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
    } else if (isRecord(node)) {
      // Keys, not entries: a value with many keys is walked without a pair allocated per key.
      const keys = Object.keys(node);
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i] ?? "";
        const child = node[key];
        if (typeof child === "object" && child !== null) stack.push({ node: child, depth: depth + 1, parent: entry, key });
      }
    }
  }
  return undefined;
}
