/**
 * The Porter stemmer (M. F. Porter, 1980, "An algorithm for suffix stripping"), in the widely used
 * form published on tartarus.org (with the `logi -> log` and `bli -> ble` step-2 rules that the
 * reference C implementation added). Self-contained so the text index has no extra dependency.
 *
 * Only lowercase ASCII words of three or more letters are stemmed; anything else (numbers, accented
 * or non-Latin words) is returned unchanged, because the suffix rules are English-only.
 */

const STEP2: Record<string, string> = {
  ational: 'ate',
  tional: 'tion',
  enci: 'ence',
  anci: 'ance',
  izer: 'ize',
  bli: 'ble',
  alli: 'al',
  entli: 'ent',
  eli: 'e',
  ousli: 'ous',
  ization: 'ize',
  ation: 'ate',
  ator: 'ate',
  alism: 'al',
  iveness: 'ive',
  fulness: 'ful',
  ousness: 'ous',
  aliti: 'al',
  iviti: 'ive',
  biliti: 'ble',
  logi: 'log',
};

const STEP3: Record<string, string> = {
  icate: 'ic',
  ative: '',
  alize: 'al',
  iciti: 'ic',
  ical: 'ic',
  ful: '',
  ness: '',
};

// c = consonant, v = vowel; C = consonant sequence, V = vowel sequence (Porter's notation).
const c = '[^aeiou]';
const v = '[aeiouy]';
const C = `${c}[^aeiouy]*`;
const V = `${v}[aeiou]*`;

/** m > 0 */
const MGR0 = new RegExp(`^(${C})?${V}${C}`);
/** m == 1 */
const MEQ1 = new RegExp(`^(${C})?${V}${C}(${V})?$`);
/** m > 1 */
const MGR1 = new RegExp(`^(${C})?${V}${C}${V}${C}`);
/** the stem contains a vowel */
const S_V = new RegExp(`^(${C})?${v}`);
/** *o: the stem ends cvc, where the second c is not w, x or y */
const CVC = new RegExp(`^${C}${v}[^aeiouwxy]$`);

const STEP1A_SSES_IES = /^(.+?)(ss|i)es$/;
const STEP1A_S = /^(.+?)([^s])s$/;
const STEP1B_EED = /^(.+?)eed$/;
const STEP1B_ED_ING = /^(.+?)(ed|ing)$/;
const STEP1B_AT_BL_IZ = /(at|bl|iz)$/;
const STEP1B_DOUBLE = /([^aeiouylsz])\1$/;
const STEP1C = /^(.+?)y$/;
const STEP2_RE =
  /^(.+?)(ational|tional|enci|anci|izer|bli|alli|entli|eli|ousli|ization|ation|ator|alism|iveness|fulness|ousness|aliti|iviti|biliti|logi)$/;
const STEP3_RE = /^(.+?)(icate|ative|alize|iciti|ical|ful|ness)$/;
const STEP4_RE =
  /^(.+?)(al|ance|ence|er|ic|able|ible|ant|ement|ment|ent|ou|ism|ate|iti|ous|ive|ize)$/;
const STEP4_ION = /^(.+?)(s|t)(ion)$/;
const STEP5_E = /^(.+?)e$/;
const STEMMABLE = /^[a-z]{3,}$/;

export function porterStem(word: string): string {
  if (!STEMMABLE.test(word)) return word;
  let w = word;
  // A leading y is a consonant; mark it so the vowel patterns do not treat it as one.
  const leadingY = w.startsWith('y');
  if (leadingY) w = `Y${w.slice(1)}`;

  // Step 1a
  let m = STEP1A_SSES_IES.exec(w);
  if (m) w = `${m[1]}${m[2]}`;
  else if ((m = STEP1A_S.exec(w))) w = `${m[1]}${m[2]}`;

  // Step 1b
  if ((m = STEP1B_EED.exec(w))) {
    if (MGR0.test(m[1] ?? '')) w = w.slice(0, -1);
  } else if ((m = STEP1B_ED_ING.exec(w))) {
    const stem = m[1] ?? '';
    if (S_V.test(stem)) {
      w = stem;
      if (STEP1B_AT_BL_IZ.test(w)) w = `${w}e`;
      else if (STEP1B_DOUBLE.test(w)) w = w.slice(0, -1);
      else if (CVC.test(w)) w = `${w}e`;
    }
  }

  // Step 1c
  if ((m = STEP1C.exec(w))) {
    const stem = m[1] ?? '';
    if (S_V.test(stem)) w = `${stem}i`;
  }

  // Step 2
  if ((m = STEP2_RE.exec(w))) {
    const stem = m[1] ?? '';
    if (MGR0.test(stem)) w = stem + (STEP2[m[2] ?? ''] ?? '');
  }

  // Step 3
  if ((m = STEP3_RE.exec(w))) {
    const stem = m[1] ?? '';
    if (MGR0.test(stem)) w = stem + (STEP3[m[2] ?? ''] ?? '');
  }

  // Step 4
  if ((m = STEP4_RE.exec(w))) {
    const stem = m[1] ?? '';
    if (MGR1.test(stem)) w = stem;
  } else if ((m = STEP4_ION.exec(w))) {
    const stem = (m[1] ?? '') + (m[2] ?? '');
    if (MGR1.test(stem)) w = stem;
  }

  // Step 5
  if ((m = STEP5_E.exec(w))) {
    const stem = m[1] ?? '';
    if (MGR1.test(stem) || (MEQ1.test(stem) && !CVC.test(stem))) w = stem;
  }
  if (w.endsWith('ll') && MGR1.test(w)) w = w.slice(0, -1);

  if (leadingY) w = `y${w.slice(1)}`;
  return w;
}
