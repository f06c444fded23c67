//! Fuzz target `puzzle_csv`: the puzzle CSV reader (`src/server/puzzles/csv.rs`, with the line
//! and theme modules it checks rows with, compiled here from their own source) on arbitrary
//! bytes never panics; whatever it accepts is written back and reads as the same rows, and
//! every row's puzzle id is 6 letters and digits.
#![no_main]

use libfuzzer_sys::fuzz_target;
/// `crate::rules` for the included puzzle modules.
pub use marseillais_fuzz::rules;

// At the crate root, so that csv.rs's `super::line` and `super::theme` resolve.
#[allow(dead_code)]
#[path = "../../src/server/puzzles/csv.rs"]
mod puzzle_csv;
#[allow(dead_code)]
#[path = "../../src/server/puzzles/line.rs"]
mod line;
#[allow(dead_code)]
#[path = "../../src/server/puzzles/theme.rs"]
mod theme;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let id = puzzle_csv::puzzle_id(&text, &text);
    assert_eq!(id.len(), puzzle_csv::ID_LENGTH);
    let Ok(rows) = puzzle_csv::read(&text) else {
        return;
    };
    let mut out = Vec::new();
    if let Err(err) = puzzle_csv::write(&mut out, &rows) {
        panic!("writing {} rows to memory failed: {err}", rows.len());
    }
    let written = match String::from_utf8(out) {
        Ok(written) => written,
        Err(err) => panic!("the writer made invalid UTF-8: {err}"),
    };
    match puzzle_csv::read(&written) {
        Ok(again) => assert_eq!(again, rows, "{written}"),
        Err(err) => panic!("accepted rows written back do not read ({err}): {written}"),
    }
    for row in &rows {
        let id = puzzle_csv::puzzle_id(&row.fen, &row.moves);
        assert!(
            id.len() == puzzle_csv::ID_LENGTH && id.bytes().all(|b| b.is_ascii_alphanumeric()),
            "{id}"
        );
    }
});
