// Helpers of the scripts that generate source files (pertainyms.ts).

/** `items` joined by spaces into lines of at most `width` characters (an item longer than that has a line of its own). */
export function wrapWords(items: Iterable<string>, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const item of items) {
    if (line.length > 0 && line.length + item.length + 1 > width) {
      lines.push(line);
      line = "";
    }
    line = line.length === 0 ? item : `${line} ${item}`;
  }
  if (line.length > 0) lines.push(line);
  return lines;
}

/** The script's one command-line argument; without it, prints `usage` and exits with status 2. */
export function onlyArgument(usage: string): string {
  const argument = process.argv[2];
  if (argument === undefined) {
    console.error(`usage: ${usage}`);
    process.exit(2);
  }
  return argument;
}
