//! Fuzz target `pgn_tree`: the analysis board's PGN reader with variations and comments
//! (`src/rules/pgn/variations.rs`) on arbitrary text never panics, and whatever it accepts,
//! written back canonically, reads again as a tree of the same size and writes back to the
//! same text (export is a fixed point of import then export).
#![no_main]

use libfuzzer_sys::fuzz_target;
use marseillais_fuzz::rules::pgn::{GameResult, read_tree, write_tree};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let Some(Ok(imported)) = read_tree(&text) else {
        return;
    };
    let result = imported.result.unwrap_or(GameResult::Ongoing);
    let written = write_tree(&imported.tree, &imported.tags, result);
    let again = match read_tree(&written) {
        Some(Ok(again)) => again,
        other => panic!("canonical PGN with variations does not read back: {other:?}\n{written}"),
    };
    assert_eq!(again.tree.len(), imported.tree.len(), "{written}");
    assert_eq!(again.tree.start(), imported.tree.start(), "{written}");
    let rewritten = write_tree(
        &again.tree,
        &again.tags,
        again.result.unwrap_or(GameResult::Ongoing),
    );
    assert_eq!(rewritten, written);
});
