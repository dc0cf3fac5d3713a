// Writes src/core/tools/o200kRanks.bin, the o200k_base byte-pair ranks that token counts use (format:
// src/core/tools/tokenRanks.ts), from the table of the installed gpt-tokenizer package (a dependency: its
// `bpeRanks/o200k_base` module, an array literal of the ranks). Run it again after updating gpt-tokenizer:
//
//   node scripts/tokenRanks.ts
//
// Prints the package's version, the file's size and its SHA-256; the test test/core/tools/tokenRanks.test.ts checks
// that the file decodes to exactly the package's array.
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import ranks from "gpt-tokenizer/bpeRanks/o200k_base";
import { encodeTokenRanks } from "../src/core/tools/tokenRanks.ts";

const OUTPUT = fileURLToPath(new URL("../src/core/tools/o200kRanks.bin", import.meta.url));
const PACKAGE = new URL("../node_modules/gpt-tokenizer/package.json", import.meta.url);

const version: unknown = JSON.parse(readFileSync(PACKAGE, "utf8")).version;
const bytes = encodeTokenRanks(ranks);
writeFileSync(OUTPUT, bytes);
const sha256 = createHash("sha256").update(bytes).digest("hex");
console.log(JSON.stringify({ gptTokenizer: version, ranks: ranks.length, file: OUTPUT, bytes: bytes.length, sha256 }));
