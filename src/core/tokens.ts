// Token counts with a real tokenizer (gpt-tokenizer, o200k_base), never estimated from length.
import { countTokens as countO200k } from "gpt-tokenizer/encoding/o200k_base";

/** Tokens of `text` in the o200k_base encoding (the GPT-4o / GPT-5 family). Special-token text counts as plain text. */
export function countTokens(text: string): number {
  if (text.length === 0) return 0;
  return countO200k(text, { disallowedSpecial: new Set() });
}
