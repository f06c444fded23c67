//! What of a text a reader sees: the character rules behind [`super::chat::ChatText`] (issue 34,
//! "invisible lines").
//!
//! A browser draws nothing for whitespace, format characters (general category Cf: zero-width
//! space, joiners, word joiner, soft hyphen, byte order mark...), default-ignorable code points
//! (the Hangul fillers among them) and variation selectors, and a combining mark alone draws at
//! most an accent over nothing. A line made only of those shows as an empty line, so it is
//! refused; and a letter carrying dozens of combining marks ("zalgo" text) draws over the lines
//! around it, so the marks on one character are capped at [`MAX_MARKS`].
//!
//! The general category and the marks come from `unicode-properties` (Unicode's own tables). The
//! crate has no Default_Ignorable_Code_Point, so that property is the short list below, copied
//! from DerivedCoreProperties.txt (it has not changed since Unicode 14, which added U+180F).

use unicode_properties::{GeneralCategory, GeneralCategoryGroup, UnicodeGeneralCategory};

/// Most combining marks one character may carry, counting the marks that stack (nonspacing and
/// enclosing: general category Mn and Me).
///
/// Writing needs a few: decomposed Vietnamese puts two on a vowel (`ệ` = e, dot below,
/// circumflex), Thai two (a vowel and a tone), pointed Hebrew and Tibetan stacks three, and the
/// rarest (Hebrew with cantillation, phonetic transcription) four. Zalgo text needs dozens. Four
/// stay within about a line's height, so a line cannot draw over its neighbours, and no ordinary
/// text is refused. Spacing marks (Mc) are not counted: each takes its own width, like a letter,
/// and nonspacing marks after it sit on it; Burmese writes five marks after one consonant
/// (`လျှော့`, "to reduce"), three of them spacing.
pub const MAX_MARKS: usize = 4;

/// Whether a reader sees `c` on its own: not whitespace of any kind, not a control or format
/// character, not default-ignorable, not a combining mark (a mark is seen only on a character
/// that is), and not the blank Braille pattern U+2800 (a glyph of blank dots: the usual filler of
/// "empty" names once the Hangul fillers are caught). Private-use and unassigned characters
/// count as visible: a font may draw the first, and the second may be an emoji newer than our
/// tables.
pub fn is_visible(c: char) -> bool {
    if c.is_whitespace() || is_default_ignorable(c) || c == '\u{2800}' {
        return false;
    }
    match c.general_category_group() {
        GeneralCategoryGroup::Mark | GeneralCategoryGroup::Separator => false,
        GeneralCategoryGroup::Other => matches!(
            c.general_category(),
            GeneralCategory::PrivateUse | GeneralCategory::Unassigned
        ),
        _ => true,
    }
}

/// Whether `c` is a combining mark (general category Mn, Mc or Me): drawn with the character
/// before it.
pub fn is_mark(c: char) -> bool {
    c.general_category_group() == GeneralCategoryGroup::Mark
}

/// Whether `c` is a mark drawn over or under what comes before it without width of its own
/// (Mn, Me): what piles up in zalgo text.
fn stacks(c: char) -> bool {
    matches!(
        c.general_category(),
        GeneralCategory::NonspacingMark | GeneralCategory::EnclosingMark
    )
}

/// Unicode's Default_Ignorable_Code_Point: drawn as nothing by a renderer that does not support
/// it. The ranges and their categories, from DerivedCoreProperties.txt.
pub fn is_default_ignorable(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'                       // Cf soft hyphen
        | '\u{034F}'                     // Mn combining grapheme joiner
        | '\u{061C}'                     // Cf Arabic letter mark
        | '\u{115F}'..='\u{1160}'        // Lo Hangul choseong and jungseong fillers
        | '\u{17B4}'..='\u{17B5}'        // Mn Khmer inherent vowels
        | '\u{180B}'..='\u{180F}'        // Mn/Cf Mongolian variation selectors, vowel separator
        | '\u{200B}'..='\u{200F}'        // Cf zero-width space, non-joiner, joiner, LRM, RLM
        | '\u{202A}'..='\u{202E}'        // Cf bidirectional embeddings and overrides
        | '\u{2060}'..='\u{206F}'        // Cf word joiner, invisible operators, isolates...
        | '\u{3164}'                     // Lo Hangul filler
        | '\u{FE00}'..='\u{FE0F}'        // Mn variation selectors 1-16
        | '\u{FEFF}'                     // Cf zero-width no-break space (byte order mark)
        | '\u{FFA0}'                     // Lo half-width Hangul filler
        | '\u{FFF0}'..='\u{FFF8}'        // Cn reserved
        | '\u{1BCA0}'..='\u{1BCA3}'      // Cf shorthand format controls
        | '\u{1D173}'..='\u{1D17A}'      // Cf musical symbol format controls
        | '\u{E0000}'..='\u{E0FFF}' // Cf/Mn/Cn tags, variation selectors 17-256, reserved
    )
}

/// Whether `c` is a default-ignorable character that writing does not need, so that it is
/// removed from a line: it only hides or pads. Kept are the ones that mean something:
/// the zero-width joiner (emoji sequences such as the family 👩‍👩‍👧, and Indic conjuncts), the
/// zero-width non-joiner (Persian and Indic spelling), the directional marks LRM, RLM and ALM
/// (mixed right-to-left text), the variation selectors (emoji or text presentation, ideographic
/// variants, Mongolian forms) and the tag characters (the flags of England, Scotland and Wales).
/// Lichess strips zero-width characters alike; the joiners are what it must keep, too.
pub fn is_stripped(c: char) -> bool {
    is_default_ignorable(c) && !means_something(c)
}

fn means_something(c: char) -> bool {
    matches!(
        c,
        '\u{200C}'..='\u{200F}'          // ZWNJ, ZWJ, LRM, RLM
        | '\u{061C}'                     // ALM
        | '\u{180B}'..='\u{180D}'        // Mongolian free variation selectors 1-3
        | '\u{180F}'                     // Mongolian free variation selector 4
        | '\u{FE00}'..='\u{FE0F}'        // variation selectors 1-16
        | '\u{E0020}'..='\u{E007F}'      // tags (emoji subdivision flags)
        | '\u{E0100}'..='\u{E01EF}' // variation selectors 17-256
    )
}

/// The most stacking marks on one character of `text`: the longest run of nonspacing and
/// enclosing marks, where default-ignorable and format characters in the run do not end it (a
/// zero-width joiner between two marks does not stop them piling on the same letter).
pub fn most_marks_on_one_character(text: &str) -> usize {
    let mut most = 0;
    let mut run = 0;
    for c in text.chars() {
        if stacks(c) {
            run += 1;
            most = most.max(run);
        } else if !(is_default_ignorable(c) || c.general_category() == GeneralCategory::Format) {
            run = 0;
        }
    }
    most
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whitespace_of_every_kind_is_not_visible() {
        for c in [
            ' ', '\u{A0}', '\u{1680}', '\u{2000}', '\u{2007}', '\u{200A}', '\u{202F}', '\u{205F}',
            '\u{3000}', '\u{2028}', '\u{2029}',
        ] {
            assert!(!is_visible(c), "U+{:04X}", c as u32);
        }
    }

    #[test]
    fn format_and_default_ignorable_characters_and_fillers_are_not_visible() {
        for c in [
            '\u{200B}',
            '\u{200C}',
            '\u{200D}',
            '\u{200E}',
            '\u{200F}',
            '\u{2060}',
            '\u{2061}',
            '\u{2064}',
            '\u{FEFF}',
            '\u{00AD}',
            '\u{180E}',
            '\u{061C}',
            '\u{115F}',
            '\u{1160}',
            '\u{3164}',
            '\u{FFA0}',
            '\u{034F}',
            '\u{E0001}',
            '\u{E0067}',
            '\u{1D173}',
            // Cf without being default-ignorable: still nothing a line can be made of.
            '\u{0600}',
            '\u{110BD}',
        ] {
            assert!(!is_visible(c), "U+{:04X}", c as u32);
        }
    }

    #[test]
    fn variation_selectors_and_combining_marks_alone_are_not_visible() {
        for c in [
            '\u{FE00}',
            '\u{FE0E}',
            '\u{FE0F}',
            '\u{E0100}',
            '\u{E01EF}',
            '\u{180B}',
            '\u{0301}',
            '\u{0308}',
            '\u{20E3}',
            '\u{0903}',
            '\u{0E48}',
        ] {
            assert!(!is_visible(c), "U+{:04X}", c as u32);
        }
        assert!(is_mark('\u{0301}') && is_mark('\u{20E3}') && is_mark('\u{0903}'));
        assert!(!is_mark('e') && !is_mark('\u{200D}'));
    }

    #[test]
    fn the_blank_braille_pattern_is_not_visible() {
        assert!(!is_visible('\u{2800}'));
        assert!(is_visible('\u{2801}'));
    }

    #[test]
    fn letters_digits_punctuation_symbols_emoji_and_cjk_are_visible() {
        for c in [
            'a', 'é', 'ñ', 'ж', '7', '!', '€', '♞', '👩', '🏽', '🇫', '漢', 'か', '한', 'ก',
            '\u{E000}',
        ] {
            assert!(is_visible(c), "{c}");
        }
    }

    #[test]
    fn only_the_meaningless_ignorables_are_stripped() {
        for c in [
            '\u{200B}',
            '\u{2060}',
            '\u{2063}',
            '\u{FEFF}',
            '\u{00AD}',
            '\u{180E}',
            '\u{3164}',
            '\u{115F}',
            '\u{1160}',
            '\u{FFA0}',
            '\u{034F}',
            '\u{E0001}',
            '\u{E0FFF}',
        ] {
            assert!(is_stripped(c), "U+{:04X}", c as u32);
        }
        for c in [
            '\u{200C}',
            '\u{200D}',
            '\u{200E}',
            '\u{200F}',
            '\u{061C}',
            '\u{FE0F}',
            '\u{E0067}',
            '\u{E007F}',
            '\u{E0100}',
            'a',
            ' ',
            '\u{0301}',
        ] {
            assert!(!is_stripped(c), "U+{:04X}", c as u32);
        }
    }

    #[test]
    fn marks_are_counted_per_character_and_joiners_do_not_split_a_stack() {
        assert_eq!(most_marks_on_one_character("abc"), 0);
        assert_eq!(most_marks_on_one_character("e\u{301} e\u{323}\u{302}"), 2);
        assert_eq!(
            most_marks_on_one_character("a\u{301}\u{200D}\u{301}\u{2060}\u{301}"),
            3
        );
        // A keycap: the digit, VS16 and the enclosing keycap.
        assert_eq!(most_marks_on_one_character("1\u{FE0F}\u{20E3}"), 2);
        // Burmese "to reduce": medial ya (Mc), medial ha (Mn), vowel signs e and aa (Mc), dot
        // below (Mn). Spacing marks take their own width: at most one mark piles anywhere.
        assert_eq!(
            most_marks_on_one_character("\u{101C}\u{103B}\u{103E}\u{1031}\u{102C}\u{1037}"),
            1
        );
        assert_eq!(
            most_marks_on_one_character(&format!("a{}", "\u{301}".repeat(139))),
            139
        );
    }
}
