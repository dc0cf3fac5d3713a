// `node scripts/pertainyms.ts <WordNet 3.0 dict directory>` (Debian's wordnet-base package installs it at
// /usr/share/wordnet): writes src/core/search/pertainyms.ts, the relational adjectives and adverbs the ranked mode
// reads as the word they pertain to ("legal" → law, "medical" → medicine, "legally" → legal → law).
// WordNet's pertainym pointers, each word's most frequent sense that has one; only words its sense-tagged corpus
// (SemCor) attests, and only where the Porter stems differ (the rest the stemmer already conflates).
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { stem } from "../src/core/search/stemmer.ts";
import { onlyArgument, wrapWords } from "./generatedSource.ts";

const PLAIN = /^[a-z]+$/;
const PERTAINYM = "\\";
const LINE_WIDTH = 110;

interface Pointer {
  symbol: string;
  offset: string;
  /** n, v, a, s (an adjective satellite, in the adjective files) or r. */
  pos: string;
  source: number;
  target: number;
}

interface Synset {
  words: string[];
  pointers: Pointer[];
}

/** A data.* file's synsets by offset (wndb(5WN)); lines that start with spaces are the license header. */
function readData(directory: string, file: string): Map<string, Synset> {
  const synsets = new Map<string, Synset>();
  for (const line of readFileSync(join(directory, file), "latin1").split("\n")) {
    if (line.length === 0 || line.startsWith(" ")) continue;
    const fields = (line.split("|")[0] ?? "").trim().split(" ");
    const count = Number.parseInt(fields[3] ?? "0", 16);
    // Adjectives may carry a syntactic marker: "galore(ip)".
    const words = Array.from({ length: count }, (_, i) => (fields[4 + 2 * i] ?? "").toLowerCase().replace(/\(.*\)$/, ""));
    let at = 4 + 2 * count;
    const pointerCount = Number.parseInt(fields[at] ?? "0", 10);
    at++;
    const pointers: Pointer[] = [];
    for (let i = 0; i < pointerCount; i++, at += 4) {
      const sourceTarget = fields[at + 3] ?? "0000";
      pointers.push({
        symbol: fields[at] ?? "",
        offset: fields[at + 1] ?? "",
        pos: fields[at + 2] ?? "",
        source: Number.parseInt(sourceTarget.slice(0, 2), 16),
        target: Number.parseInt(sourceTarget.slice(2), 16),
      });
    }
    synsets.set(fields[0] ?? "", { words, pointers });
  }
  return synsets;
}

/** An index.* file: each lemma's synsets, most frequent sense first, and how many of its senses SemCor tags. */
function readIndex(directory: string, file: string): { lemma: string; tagged: number; offsets: string[] }[] {
  const entries: { lemma: string; tagged: number; offsets: string[] }[] = [];
  for (const line of readFileSync(join(directory, file), "latin1").split("\n")) {
    if (line.length === 0 || line.startsWith(" ")) continue;
    const fields = line.trim().split(" ");
    const senses = Number(fields[2]);
    const pointerKinds = Number(fields[3]);
    const tagged = Number(fields[5 + pointerKinds]);
    entries.push({ lemma: fields[0] ?? "", tagged, offsets: fields.slice(6 + pointerKinds, 6 + pointerKinds + senses) });
  }
  return entries;
}

/** Each attested plain lemma of `index` → what its most frequent sense with a pertainym pointer points to. */
function pertainyms(
  index: ReturnType<typeof readIndex>,
  synsets: Map<string, Synset>,
  targets: (pos: string) => Map<string, Synset> | undefined,
): Map<string, string> {
  const found = new Map<string, string>();
  for (const { lemma, tagged, offsets } of index) {
    if (!PLAIN.test(lemma) || tagged < 1) continue;
    for (const offset of offsets) {
      const synset = synsets.get(offset);
      const source = synset ? synset.words.indexOf(lemma) + 1 : 0;
      if (!synset || source === 0) continue;
      const target = synset.pointers
        .filter((p) => p.symbol === PERTAINYM && p.source === source)
        .map((p) => targets(p.pos)?.get(p.offset)?.words[p.target - 1] ?? "")
        .find((word) => PLAIN.test(word) && word !== lemma);
      if (target !== undefined) {
        found.set(lemma, target);
        break;
      }
    }
  }
  return found;
}

function main(): void {
  const directory = onlyArgument("node scripts/pertainyms.ts <WordNet 3.0 dict directory, e.g. /usr/share/wordnet>");
  const nouns = readData(directory, "data.noun");
  const adjectives = readData(directory, "data.adj");
  const adverbs = readData(directory, "data.adv");
  // Relational adjectives point at nouns; adverbs at the adjectives they derive from.
  const ofAdjective = pertainyms(readIndex(directory, "index.adj"), adjectives, (pos) => (pos === "n" ? nouns : undefined));
  const ofAdverb = pertainyms(readIndex(directory, "index.adv"), adverbs, (pos) => (pos === "a" || pos === "s" ? adjectives : undefined));
  const pairs: string[] = [];
  for (const word of new Set([...ofAdjective.keys(), ...ofAdverb.keys()])) {
    const adjective = ofAdverb.get(word) ?? word;
    const base = ofAdjective.get(adjective) ?? adjective;
    if (stem(word) !== stem(base)) pairs.push(`${word} ${base}`);
  }
  pairs.sort();
  const lines = wrapWords(pairs, LINE_WIDTH);
  const source = [
    "// Generated by `node scripts/pertainyms.ts /usr/share/wordnet` from WordNet 3.0: do not edit. Relational adjectives",
    `// and adverbs, each followed by the word it is read as (analyze.ts): ${pairs.length} pairs.`,
    "//",
    "// WordNet 3.0 Copyright 2006 by Princeton University. All rights reserved.",
    "// THIS SOFTWARE AND DATABASE IS PROVIDED \"AS IS\" AND PRINCETON UNIVERSITY MAKES NO REPRESENTATIONS OR WARRANTIES,",
    "// EXPRESS OR IMPLIED. BY WAY OF EXAMPLE, BUT NOT LIMITATION, PRINCETON UNIVERSITY MAKES NO REPRESENTATIONS OR",
    "// WARRANTIES OF MERCHANTABILITY OR FITNESS FOR ANY PARTICULAR PURPOSE OR THAT THE USE OF THE LICENSED SOFTWARE,",
    "// DATABASE OR DOCUMENTATION WILL NOT INFRINGE ANY THIRD PARTY PATENTS, COPYRIGHTS, TRADEMARKS OR OTHER RIGHTS.",
    "// The name of Princeton University or Princeton may not be used in advertising or publicity pertaining to",
    "// distribution of the software and/or database. Title to copyright in this software, database and any associated",
    "// documentation shall at all times remain with Princeton University and LICENSEE agrees to preserve same.",
    "// (The WordNet 3.0 license: https://wordnet.princeton.edu/license-and-commercial-use)",
    "",
    "/** \"word base word base …\": each word, then what it pertains to. */",
    "export const PERTAINYM_PAIRS = [",
    ...lines.map((text) => `  "${text}",`),
    '].join(" ");',
    "",
  ].join("\n");
  const target = fileURLToPath(new URL("../src/core/search/pertainyms.ts", import.meta.url));
  writeFileSync(target, source);
  console.error(`pertainyms: ${pairs.length} pairs → ${target}`);
}

main();
