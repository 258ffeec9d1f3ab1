import { describe, expect, it } from 'vitest';
import {
  cleanText,
  consonantSkeleton,
  consonantSkeletonByRules,
  documentNumberKey,
  nameTokens,
  nameVariants,
  normalizeName,
  skeletonName,
  sortedTokenKey,
} from '../../../src/engines/aml/normalize.js';
import {
  FUSED_ARTICLE_CREDIT,
  jaro,
  jaroWinkler,
  SHORT_FUZZY_TOKEN_CREDIT,
  similarLength,
  softTokenScore,
  tokenSimilarity,
} from '../../../src/engines/aml/similarity.js';

describe('normalizeName', () => {
  it.each([
    ['José Müller', 'jose muller'],
    ['  JOHN   o’Brien ', 'john obrien'],
    ['Владимир Путин', 'vladimir putin'],
    ['Ιωάννης Καραμολέγκος', 'ioannis karamolegkos'],
    ['Łukasz Straße', 'lukasz strasse'],
    ['Ｊｏｈｎ Ｓｍｉｔｈ', 'john smith'],
    ['Mr. John Smith Jr.', 'john smith'],
    ['Dr Hélène Marchetti-Dubois', 'helene marchetti dubois'],
    ['Saddam Hussein al-Tikriti', 'saddam hussein tikriti'],
    ['al-Tikriti Saddam Hussein', 'tikriti saddam hussein'],
    ['Ursula von der Leyen', 'ursula leyen'],
    ['Juan de la Cruz', 'juan cruz'],
    ['Bin Laden, Osama', 'laden osama'],
    ['Mohammed bin Salman', 'mohammed salman'],
    ['Mohammed ibn Salman', 'mohammed salman'],
    ['Al Smith', 'al smith'],
    ['Wang Bin', 'wang bin'],
    ['Al-Qaida', 'al qaida'],
    ['Mr', 'mr'],
    ['', ''],
  ])('%s → %s', (input, expected) => {
    expect(normalizeName(input)).toBe(expected);
  });

  it('transliterates Arabic script (unvocalised), drops the connective "bn" and splits the article off as Latin spellings do', () => {
    expect(normalizeName('محمد بن سلمان')).toBe('mhmd slmn');
    expect(normalizeName('صدام حسين التكريتي')).toBe('sdm hsyn tkryty');
  });

  it('transliterates Han and Hangul one syllable per token, Hangul also as the lists romanise Korean names', () => {
    expect(nameTokens('王小明')).toEqual(['wang', 'xiao', 'ming']);
    expect(nameTokens('박철민')).toEqual(['bag', 'cheol', 'min']);
    expect(nameVariants('김정은')).toEqual(['gim jeong eun', 'kim jong un']);
    expect(nameVariants('최룡해')).toContain('choe ryong hae');
    expect(nameVariants('박철민')).toContain('pak chol min');
  });

  it('sortedTokenKey ignores token order, case and punctuation', () => {
    expect(sortedTokenKey('KRAVETSKY, Borislav')).toBe('borislav kravetsky');
    expect(sortedTokenKey('Borislav Kravetsky')).toBe(sortedTokenKey('kravetsky borislav'));
  });

  it("nameVariants adds the lists' o/u for Revised Romanization's eo/eu in Latin names, not for Hangul (romanised the lists' way already)", () => {
    expect(nameVariants('Kim Yeo-jong')).toEqual(['kim yeo jong', 'kim yo jong']);
    expect(nameVariants('Kim Yeong-cheol')).toEqual(['kim yeong cheol', 'kim yong chol']);
    expect(nameVariants('Choe Ryong-hae')).toEqual(['choe ryong hae']);
    expect(nameVariants('김여정')).toEqual(['gim yeo jeong', 'kim yo jong']);
  });

  it('nameVariants adds the German umlaut spelling only when there is an umlaut', () => {
    expect(nameVariants('José Müller')).toEqual(['jose muller', 'jose mueller']);
    expect(nameVariants('Jose Mueller')).toEqual(['jose mueller']);
    expect(nameVariants('Jo\u0308rg')).toEqual(['jorg', 'joerg']);
  });
});

describe('cleanText: what cannot be seen does not count (audit M2)', () => {
  const invisibles = {
    'Hangul filler U+3164': '\u3164',
    'Hangul choseong filler U+115F': '\u115F',
    'braille blank U+2800': '\u2800',
    'interlinear annotation U+FFF9': '\uFFF9',
    'tag space U+E0020': '\u{E0020}',
    'tag letter U+E0041': '\u{E0041}',
    NUL: '\u0000',
    'zero-width space': '\u200B',
    'soft hyphen': '\u00AD',
  };

  it.each(Object.entries(invisibles))('given %s inside a word, when normalised, then the name is the plain one', (_, ch) => {
    expect(normalizeName(`Jo${ch}hn Blo${ch}cked`)).toBe('john blocked');
    expect(sortedTokenKey(`Jo${ch}hn Blocked`)).toBe(sortedTokenKey('John Blocked'));
    expect(normalizeName([...'Anatoliy Zarembin'].join(ch))).toBe('anatoliy zarembin');
  });

  it('given digits of other scripts, when cleaned, then they are ASCII digits', () => {
    expect(cleanText('٣٤ ۵ ४२ ０')).toBe('34 5 42 0');
  });

  it('given a Latin word with lookalike letters of another script, when cleaned, then they are the Latin letters; a word wholly in that script is left alone', () => {
    expect(cleanText('Vl\u0430dimir Put\u0456n')).toBe('Vladimir Putin');
    expect(cleanText('\u0399van')).toBe('Ivan');
    expect(cleanText('Владимир')).toBe('Владимир');
    expect(normalizeName('Владимир')).toBe('vladimir');
  });

  it('given a Persian zero-width non-joiner between two letters, when cleaned, then it is a word break, not a join', () => {
    expect(cleanText('خامنه\u200Cای')).toBe('خامنه ای');
  });

  it('given a document number with a Cyrillic letter, Arabic-Indic digits, spaces or invisibles, when keyed, then it is the plain number', () => {
    expect(documentNumberKey('\u04251234567')).toBe('X1234567');
    expect(documentNumberKey('X١٢٣٤٥٦٧')).toBe('X1234567');
    expect(documentNumberKey('x 123-45\u200B67')).toBe('X1234567');
    expect(documentNumberKey('X12\u{E0020}34567')).toBe('X1234567');
    expect(documentNumberKey('ÉB 12')).toBe('EB12');
    expect(documentNumberKey('--')).toBe('');
  });
});

describe('sortedTokenKey: stored name list fingerprints keep matching', () => {
  // Computed with the normaliser of commit 7f1dcb4; list entries store only hashes of these keys.
  it.each([
    ['Dr. José García', 'garcia jose'],
    ['KRAVETSKY, Borislav', 'borislav kravetsky'],
    ['Saddam Hussein al-Tikriti', 'hussein saddam tikriti'],
    ['Al Smith', 'al smith'],
    ['Mohammed bin Salman', 'mohammed salman'],
    ['Владимир Путин', 'putin vladimir'],
    ['صدام حسين التكريتي', 'hsyn ltkryty sdm'],
    ['김정은', 'eun gim jeong'],
    ['王小明', 'ming wang xiao'],
    ["O'Brien, Seán", 'obrien sean'],
    ['Ursula von der Leyen', 'der leyen ursula von'],
    ['Ｊｏｈｎ Ｓｍｉｔｈ', 'john smith'],
    ['Mr John Smith Jr', 'john smith'],
  ])('given %s, when keyed, then the key is the one stored before', (name, key) => {
    expect(sortedTokenKey(name)).toBe(key);
  });
});

describe('consonant skeletons', () => {
  it('given a Latin spelling and an unvocalised transliteration of one name, when reduced, then the skeletons are equal', () => {
    expect(skeletonName(normalizeName('Qasem Soleimani'))).toBe(skeletonName(normalizeName('قاسم سليماني')));
    expect(skeletonName(normalizeName('Saddam Hussein al-Tikriti'))).toBe(skeletonName(normalizeName('صدام حسين التكريتي')));
    expect(skeletonName(normalizeName('Ali Khamenei'))).toBe(skeletonName(normalizeName('علی خامنه‌ای')));
    // ة after z is not the letter "zh"; a final h is dropped after the vowels, so Taha is طه.
    expect(skeletonName(normalizeName('Muhammad Hamza Zubaidi'))).toBe(skeletonName(normalizeName('محمد حمزة زبيدي')));
    expect(skeletonName(normalizeName('Taha Yassin Ramadan al-Jizrawi'))).toBe(skeletonName(normalizeName('طه ياسين رمضان الجزراوي')));
    // "Omar" unvocalised is "mr", a name here and not a title; "Abdul" is "Abd al-".
    expect(skeletonName(normalizeName('Omar Mahmoud Uthman'))).toBe(skeletonName(normalizeName('عمر محمود عثمان')));
    expect(skeletonName(normalizeName('Abdul Rahman Yasin'))).toBe(skeletonName(normalizeName('عبد الرحمن ياسين')));
    expect(skeletonName(normalizeName('Djamel Moustfa'))).toBe(skeletonName(normalizeName('جمال مصطفى')));
  });

  it('given Abd with the article fused on, when normalised, then it is Abd al- without the article; Abdullah stays', () => {
    expect(normalizeName('Abdul Rahman Yasin')).toBe(normalizeName('Abd al-Rahman Yasin'));
    expect(normalizeName('Abdel Aziz Rantisi')).toBe('abd aziz rantisi');
    expect(normalizeName('Abdulrahman Yusuf')).toBe('abdrahman yusuf');
    expect(normalizeName('Abdullah Azzam')).toBe('abdullah azzam');
    expect(normalizeName('Abdolah Azzam')).toBe('abdolah azzam');
  });

  it('given Mr before a Latin name, when normalised, then it is a title; "mr" from Arabic script is Omar', () => {
    expect(normalizeName('Mr Omar Uthman')).toBe('omar uthman');
    expect(normalizeName('عمر عثمان')).toBe('mr thmn');
  });

  it('given a typo in every word, when reduced, then the skeleton usually survives', () => {
    expect(skeletonName('nicloas madruo moors')).toBe(skeletonName('nicolas maduro moros'));
    expect(consonantSkeleton('kym')).toBe(consonantSkeleton('kim'));
    // A lone h is the word's only consonant, not a final one: "hee" and "hae" keep it.
    expect(consonantSkeleton('hee')).toBe('h');
  });

  it('given every word of up to five letters over the letters the rules treat apart, when reduced, then the two-pass skeleton is the rules’ one', () => {
    // c, h, s, z, d, j, q and the vowels are what the rules rewrite or drop; k, x and a digit stand for the rest.
    const letters = 'acdehjqszyvkx1';
    let words = [''];
    let compared = 0;
    for (let length = 1; length <= 5; length += 1) {
      words = words.flatMap((word) => [...letters].map((letter) => word + letter));
      for (const word of words) {
        if (consonantSkeleton(word) !== consonantSkeletonByRules(word))
          expect(consonantSkeleton(word)).toBe(consonantSkeletonByRules(word));
        compared += 1;
      }
    }
    expect(compared).toBe(14 + 14 ** 2 + 14 ** 3 + 14 ** 4 + 14 ** 5);
    // Outside [a-z0-9] (never a normalised token) the rules answer.
    expect(consonantSkeleton('Chad-zh')).toBe(consonantSkeletonByRules('Chad-zh'));
  });

  it('given a word of vowels only, when reduced, then the skeleton is empty and left out', () => {
    expect(consonantSkeleton('aya')).toBe('');
    expect(skeletonName('aya kim')).toBe('km');
  });
});

describe('string metrics', () => {
  it('jaro and jaro-winkler match textbook values', () => {
    expect(jaro('martha', 'marhta')).toBeCloseTo(0.944, 3);
    expect(jaroWinkler('martha', 'marhta')).toBeCloseTo(0.961, 3);
    expect(jaroWinkler('dixon', 'dicksonx')).toBeCloseTo(0.813, 3);
    expect(jaroWinkler('abc', 'abc')).toBe(1);
    expect(jaroWinkler('', 'abc')).toBe(0);
    expect(jaroWinkler('abc', 'xyz')).toBe(0);
  });

  it('tokenSimilarity credits identity fully, fuzzy tokens less, initials partly, unrelated not at all', () => {
    expect(tokenSimilarity('john', 'john')).toBe(1);
    expect(tokenSimilarity('johnathan', 'jonathan')).toBeGreaterThan(0.7);
    expect(tokenSimilarity('johnathan', 'jonathan')).toBeLessThan(0.9);
    expect(tokenSimilarity('j', 'john')).toBe(0.6);
    expect(tokenSimilarity('david', 'daniel')).toBe(0);
  });

  it('given a short name spelt differently, when compared, then it earns at most the short-token credit: a syllable name one letter off is usually another name', () => {
    expect(tokenSimilarity('jon', 'john')).toBe(SHORT_FUZZY_TOKEN_CREDIT);
    expect(tokenSimilarity('jing', 'jian')).toBe(SHORT_FUZZY_TOKEN_CREDIT);
    // A vowel typed wrong keeps the consonants: still the skeleton credit.
    expect(tokenSimilarity('kym', 'kim')).toBe(0.8);
  });

  it('given a short name inside a longer one, when compared, then it earns nothing: "fang" is not "fangwei"', () => {
    expect(similarLength('fang', 'fangwei')).toBe(false);
    expect(tokenSimilarity('fang', 'fangwei')).toBe(0);
    expect(tokenSimilarity('min', 'mingfu')).toBe(0);
    expect(tokenSimilarity('un', 'jung')).toBe(0);
    // A letter or two more in a long name is a spelling: "abdoullah"/"abdullah", "mahmoud"/"mahmud".
    expect(tokenSimilarity('abdoullah', 'abdullah')).toBeGreaterThan(0.7);
    expect(tokenSimilarity('mahmoud', 'mahmud')).toBeGreaterThan(0.6);
  });

  it('given a long name whose consonants are one letter, when compared, then the skeleton credit does not apply ("aisha"/"ayash")', () => {
    expect(tokenSimilarity('aisha', 'ayash')).toBeLessThan(0.5);
  });

  it('given the Arabic article written onto a name, when compared with the bare name, then it nearly matches ("alabsi"/"absi")', () => {
    expect(tokenSimilarity('alabsi', 'absi')).toBe(FUSED_ARTICLE_CREDIT);
    expect(tokenSimilarity('qahtani', 'alqahtani')).toBe(FUSED_ARTICLE_CREDIT);
    expect(tokenSimilarity('alan', 'an')).toBe(0);
  });

  it('softTokenScore is order-independent and charges missing tokens', () => {
    expect(softTokenScore(['john', 'smith'], ['smith', 'john'])).toBe(1);
    expect(softTokenScore(['john', 'smith'], ['john', 'paul', 'smith'])).toBeCloseTo(0.8, 5);
    expect(softTokenScore(['smith'], ['john', 'smith'])).toBeCloseTo(2 / 3, 5);
    expect(softTokenScore([], ['john'])).toBe(0);
  });
});
