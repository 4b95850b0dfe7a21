// Characters that text decoders and encoders are tempted to treat specially: U+FEFF (dropped by
// a default TextDecoder when it comes first) and every Unicode noncharacter (U+FDD0..U+FDEF and
// the last two code points of each of the 17 planes). The split-invariance fuzzers put them in
// their alphabets: they are text and must come out where they went in.

/** U+FEFF, then the 66 noncharacters. */
export const ODD_CHARACTERS = [
  "\ufeff",
  ...Array.from({ length: 32 }, (_, i) => String.fromCodePoint(0xfdd0 + i)),
  ...Array.from({ length: 17 }, (_, plane) => [
    String.fromCodePoint(plane * 0x10000 + 0xfffe),
    String.fromCodePoint(plane * 0x10000 + 0xffff),
  ]).flat(),
];

/** How often `pickPiece` picks an odd character rather than one of the alphabet's pieces. */
const ODD_SHARE = 0.1;

/** A random piece of `pieces`, or now and then a random odd character. */
export function pickPiece(random, pieces) {
  if (random() < ODD_SHARE) return ODD_CHARACTERS[Math.floor(random() * ODD_CHARACTERS.length)];
  return pieces[Math.floor(random() * pieces.length)];
}
