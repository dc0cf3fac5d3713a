// English stop words and stemming, for lower-case terms.

// The SMART stop list (Salton's retrieval system), split at apostrophes as the tokenizer splits them, less the
// nouns in it that name things tools handle (name, value, sent, novel, course, changes, example, greetings, zero): a
// "CourseTool" or a "list_changes" is found by them. Ordinals stay ("the second idea"). It also covers the filler of
// requests to an assistant ("could you help me …", "i'm looking for …").
const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    "able about above according accordingly across actually after afterwards again against ain all allow allows " +
    "almost alone along already also although always am among amongst an and another any anybody anyhow anyone " +
    "anything anyway anyways anywhere apart appear appreciate appropriate are aren around as aside ask asking " +
    "associated at available away awfully be became because become becomes becoming been before beforehand " +
    "behind being believe below beside besides best better between beyond both brief but by came can cannot cant " +
    "cause causes certain certainly clearly co com come comes concerning consequently consider " +
    "considering contain containing contains corresponding could couldn currently definitely described " +
    "despite did didn different do does doesn doing don done down downwards during each edu eg eight either else " +
    "elsewhere enough entirely especially et etc even ever every everybody everyone everything everywhere ex " +
    "exactly except far few fifth first five followed following follows for former formerly forth four " +
    "from further furthermore get gets getting given gives go goes going gone got gotten had hadn " +
    "happens hardly has hasn have haven having he hello help hence her here hereafter hereby herein hereupon " +
    "hers herself hi him himself his hither hopefully how howbeit however ie if ignored immediate in inasmuch " +
    "inc indeed indicate indicated indicates inner insofar instead into inward is isn it its itself just keep " +
    "keeps kept know known knows last lately later latter latterly least less lest let like liked likely little " +
    "ll look looking looks ltd mainly many may maybe me mean meanwhile merely might mon more moreover most " +
    "mostly much must my myself namely nd near nearly necessary need needs neither never nevertheless new next " +
    "nine no nobody non none noone nor normally not nothing now nowhere obviously of off often oh ok okay old on " +
    "once one ones only onto or other others otherwise ought our ours ourselves out outside over overall own " +
    "particular particularly per perhaps placed please plus possible presumably probably provides que quite qv " +
    "rather rd re really reasonably regarding regardless regards relatively respectively right said same saw say " +
    "saying says second secondly see seeing seem seemed seeming seems seen self selves sensible serious " +
    "seriously seven several shall she should shouldn since six so some somebody somehow someone something " +
    "sometime sometimes somewhat somewhere soon sorry specified specify specifying still sub such sup sure take " +
    "taken tell tends th than thank thanks thanx that thats the their theirs them themselves then thence there " +
    "thereafter thereby therefore therein theres thereupon these they think third this thorough thoroughly those " +
    "though three through throughout thru thus to together too took toward towards tried tries truly try trying " +
    "twice two un under unfortunately unless unlikely until unto up upon us use used useful uses using usually " +
    "various ve very via viz vs want wants was wasn way we welcome well went were weren what whatever when " +
    "whence whenever where whereafter whereas whereby wherein whereupon wherever whether which while whither who " +
    "whoever whole whom whose why will willing wish with within without won wonder would yes yet you your yours " +
    "yourself yourselves "
  ).split(" "),
);

/** Whether a lower-case word carries no meaning for search ("the", "could", "please"). */
export function isStopWord(word: string): boolean {
  return STOP_WORDS.has(word);
}

// Stemming: the Porter (1980) algorithm for lower-case ASCII words, with two conflations it misses: a final "i"
// left by its step 1c or kept from "-ial" (financial, finance → financ; summary, summarize → summar) and -yze
// next to -ysis (analyze, analysis → analys).

function isConsonant(word: string, i: number): boolean {
  const c = word[i];
  if (c === "a" || c === "e" || c === "i" || c === "o" || c === "u") return false;
  if (c === "y") return i === 0 || !isConsonant(word, i - 1);
  return true;
}

/** Porter's m: the number of vowel-consonant sequences in `base`. */
function measure(base: string): number {
  let m = 0;
  let i = 0;
  const n = base.length;
  while (i < n && isConsonant(base, i)) i++;
  while (i < n) {
    while (i < n && !isConsonant(base, i)) i++;
    if (i >= n) break;
    while (i < n && isConsonant(base, i)) i++;
    m++;
  }
  return m;
}

function hasVowel(base: string): boolean {
  for (let i = 0; i < base.length; i++) if (!isConsonant(base, i)) return true;
  return false;
}

function endsDoubleConsonant(word: string): boolean {
  const n = word.length;
  return n >= 2 && word[n - 1] === word[n - 2] && isConsonant(word, n - 1);
}

/** Ends consonant-vowel-consonant, the last not w, x or y (hop, not hoop or snow). */
function endsCvc(word: string): boolean {
  const n = word.length;
  if (n < 3) return false;
  const last = word[n - 1];
  return (
    isConsonant(word, n - 3) &&
    !isConsonant(word, n - 2) &&
    isConsonant(word, n - 1) &&
    last !== "w" &&
    last !== "x" &&
    last !== "y"
  );
}

type SuffixRule = readonly [suffix: string, replacement: string];

/** Replaces the first matching suffix when the remaining base has m > 0. */
function replaceSuffix(word: string, rules: readonly SuffixRule[]): string {
  for (const [suffix, replacement] of rules) {
    if (!word.endsWith(suffix)) continue;
    const base = word.slice(0, word.length - suffix.length);
    return measure(base) > 0 ? base + replacement : word;
  }
  return word;
}

const STEP2: readonly SuffixRule[] = [
  ["ational", "ate"], ["tional", "tion"], ["enci", "ence"], ["anci", "ance"], ["izer", "ize"], ["bli", "ble"],
  ["alli", "al"], ["entli", "ent"], ["eli", "e"], ["ousli", "ous"], ["ization", "ize"], ["ation", "ate"],
  ["ator", "ate"], ["alism", "al"], ["iveness", "ive"], ["fulness", "ful"], ["ousness", "ous"], ["aliti", "al"],
  ["iviti", "ive"], ["biliti", "ble"], ["logi", "log"],
];
const STEP3: readonly SuffixRule[] = [
  ["icate", "ic"], ["ative", ""], ["alize", "al"], ["iciti", "ic"], ["ical", "ic"], ["ful", ""], ["ness", ""],
];
const STEP4 = [
  "al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent", "ion", "ou", "ism", "ate", "iti",
  "ous", "ive", "ize",
];

function step1(word: string): string {
  let w = word;
  if (w.endsWith("sses") || w.endsWith("ies")) w = w.slice(0, -2);
  else if (w.endsWith("s") && !w.endsWith("ss")) w = w.slice(0, -1);

  let removed = false;
  if (w.endsWith("eed")) {
    if (measure(w.slice(0, -3)) > 0) w = w.slice(0, -1);
  } else if (w.endsWith("ed") && hasVowel(w.slice(0, -2))) {
    w = w.slice(0, -2);
    removed = true;
  } else if (w.endsWith("ing") && hasVowel(w.slice(0, -3))) {
    w = w.slice(0, -3);
    removed = true;
  }
  if (removed) {
    if (w.endsWith("at") || w.endsWith("bl") || w.endsWith("iz")) w += "e";
    else if (endsDoubleConsonant(w) && !/[lsz]$/.test(w)) w = w.slice(0, -1);
    else if (measure(w) === 1 && endsCvc(w)) w += "e";
  }
  if (w.endsWith("y") && hasVowel(w.slice(0, -1))) w = `${w.slice(0, -1)}i`;
  return w;
}

function step4(word: string): string {
  for (const suffix of STEP4) {
    if (!word.endsWith(suffix)) continue;
    const base = word.slice(0, word.length - suffix.length);
    if (measure(base) <= 1) return word;
    if (suffix === "ion" && !base.endsWith("s") && !base.endsWith("t")) return word;
    return base;
  }
  return word;
}

function step5(word: string): string {
  let w = word;
  if (w.endsWith("e")) {
    const base = w.slice(0, -1);
    const m = measure(base);
    if (m > 1 || (m === 1 && !endsCvc(base))) w = base;
  }
  if (w.endsWith("ll") && measure(w) > 1) w = w.slice(0, -1);
  return w;
}

const ASCII_WORD = /^[a-z]+$/;

/** The stem of a lower-case word; words that are not plain ASCII letters, or of 3 letters or fewer, stay as they are. */
export function stem(word: string): string {
  if (word.length <= 3 || !ASCII_WORD.test(word)) return word;
  let w = step5(step4(replaceSuffix(replaceSuffix(step1(word), STEP2), STEP3)));
  if (w.length >= 6 && w.endsWith("i")) w = w.slice(0, -1);
  if (w.endsWith("yz")) w = `${w.slice(0, -1)}s`;
  return w;
}
