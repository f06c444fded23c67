//! The server's word list (`--chat-word-list FILE`, issue 32): a chat line that holds one of
//! its words or phrases is not sent, and its writer is told (`chat_word`). Matching folds case
//! and accents (`Merde` and `MERDÉ` are `merde`) and takes whole words only (`class` does not
//! hold `ass`); a phrase matches its words in a row, whatever separates them in the line.
//!
//! The file: one word or phrase a line, blank lines and lines starting with `#` skipped. Pure:
//! the file is read once, at startup ([`WordList::read`]; a file that cannot be read stops the
//! start).

use std::path::Path;

use unicode_normalization::UnicodeNormalization;
use unicode_properties::{GeneralCategoryGroup, UnicodeGeneralCategory};

/// `text` lower-cased with its accents and other combining marks removed (NFD, then the marks
/// dropped): what both the list and a line are compared as.
pub fn fold(text: &str) -> String {
    text.nfd()
        .filter(|c| c.general_category_group() != GeneralCategoryGroup::Mark)
        .flat_map(char::to_lowercase)
        .collect()
}

/// The words of `text`, folded: runs of letters and digits.
pub fn words(text: &str) -> Vec<String> {
    fold(text)
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_owned)
        .collect()
}

/// The phrases of a word list, each as its folded words.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WordList {
    phrases: Vec<Vec<String>>,
}

impl WordList {
    /// The list a file's text makes (see the module comment).
    pub fn parse(text: &str) -> WordList {
        let phrases = text
            .lines()
            .map(str::trim)
            .filter(|line| !line.is_empty() && !line.starts_with('#'))
            .map(words)
            .filter(|phrase| !phrase.is_empty())
            .collect();
        WordList { phrases }
    }

    /// The list in the file at `path`; why not, in a sentence.
    pub fn read(path: &Path) -> Result<WordList, String> {
        std::fs::read_to_string(path)
            .map(|text| WordList::parse(&text))
            .map_err(|e| format!("{}: {e}", path.display()))
    }

    pub fn len(&self) -> usize {
        self.phrases.len()
    }

    pub fn is_empty(&self) -> bool {
        self.phrases.is_empty()
    }

    /// Whether `line` holds one of the list's words or phrases, as whole words.
    pub fn matches(&self, line: &str) -> bool {
        if self.phrases.is_empty() {
            return false;
        }
        let said = words(line);
        self.phrases.iter().any(|phrase| {
            said.windows(phrase.len())
                .any(|window| window == phrase.as_slice())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list() -> WordList {
        WordList::parse("# insults\nMerde\n\n  buy cheap  \nidiot\n")
    }

    #[test]
    fn comments_and_blank_lines_are_skipped() {
        assert_eq!(list().len(), 3);
    }

    #[test]
    fn a_listed_word_matches_whatever_its_case_and_accents() {
        let list = list();
        assert!(list.matches("oh MERDE!"));
        assert!(list.matches("merdé"));
        assert!(list.matches("you IDIOT."));
    }

    #[test]
    fn only_whole_words_match() {
        let list = WordList::parse("ass");
        assert!(!list.matches("a classy move"));
        assert!(!list.matches("assess the position"));
        assert!(list.matches("what an ass"));
    }

    #[test]
    fn a_phrase_matches_its_words_in_a_row_only() {
        let list = list();
        assert!(list.matches("Buy,   CHEAP coins"));
        assert!(!list.matches("buy the cheap line"));
        assert!(!list.matches("cheap buy"));
    }

    #[test]
    fn an_empty_list_matches_nothing() {
        assert!(!WordList::default().matches("anything at all"));
    }

    #[test]
    fn a_missing_file_is_an_error_that_names_it() {
        let why = WordList::read(Path::new("/nonexistent/words.txt")).unwrap_err();
        assert!(why.contains("/nonexistent/words.txt"), "{why}");
    }
}
