// What a request asks for, as against what it hands over (the ranked mode's query side, minisearch.ts): a request
// quotes the data a tool is to act on ('add "Meeting with John" to my agenda', "the user 'emma007'"); when it both
// states and asks, its questions say what it wants ("My username is foo. Can you delete my account?"); and a lone
// digit is a count, an ordinal or a piece of a date ("Voyager 1", "April 1"), seldom what a tool is about. Rules
// about requests in general, no list of words (docs/search.md, "How ranking works").

/**
 * A quoted span: in double quotes (straight or curly) on one line, or in single quotes that open after a space or an
 * opening mark and close before a space, a closing mark or the end (so that "it's" and "users'" open none).
 * Each span is scanned once: its characters exclude the closing quote, so a failed match cannot backtrack further.
 */
const QUOTED = /"[^"\n]+"|“[^”\n]+”|(?<=^|[\s([{:=,])'[^'\n]+'(?=[\s.,;:!?)\]}]|$)/g;
/** A request that is one quotation from end to end: its quotes frame it, they hold no data. */
const WHOLLY_QUOTED = /^(?:"[^"]*"|“[^”]*”|'[^']*')$/;

/** `text` with its quoted spans blanked out; `text` itself when it is one quotation from end to end. */
export function withoutQuoted(text: string): string {
  const trimmed = text.trim();
  if (WHOLLY_QUOTED.test(trimmed)) return text;
  return text.replace(QUOTED, " ");
}

/** Whether a sentence of a request (text.ts, requestSentences) is a question. */
export function isQuestion(sentence: string): boolean {
  const last = sentence.trimEnd().at(-1);
  return last === "?" || last === "？";
}

/** The request's questions, when it has statements too; none when it is all questions or all statements. */
export function questionsAmongStatements(sentences: readonly string[]): string[] {
  const questions = sentences.filter(isQuestion);
  return questions.length === sentences.length ? [] : questions;
}

/** A term that is one digit (analyze.ts keeps digits, drops lone letters). */
export function isLoneDigit(term: string): boolean {
  return term.length === 1 && term >= "0" && term <= "9";
}
