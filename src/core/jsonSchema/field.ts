// Readable paths for error fields: `a.b`, `a["x y"]`, `a[3]`.

/** `parent` followed by `key`: a plain name with a dot, anything else in brackets (as JSON), an index in brackets. */
export function childField(parent: string, key: string | number): string {
  if (typeof key === "number") return `${parent}[${key}]`;
  const plain = /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key);
  if (parent === "") return plain ? key : `[${JSON.stringify(key)}]`;
  return plain ? `${parent}.${key}` : `${parent}[${JSON.stringify(key)}]`;
}
