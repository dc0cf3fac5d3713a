// Token counts with a real tokenizer (gpt-tokenizer, o200k_base), never estimated from length.

export function countTokens(_text: string): number {
  throw new Error("not implemented");
}
