//! Fuzz target `fen`: the extended-FEN reader on arbitrary bytes never
//! panics, and whatever it accepts is written back to a FEN that reads as
//! the same position (phase and en-passant targets included).
#![no_main]

use libfuzzer_sys::fuzz_target;
use marseillais_fuzz::rules::{Position, Rules};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = Position::from_fen(&text, Rules::Orthodox);
    if let Ok(position) = text.parse::<Position>() {
        let fen = position.fen();
        let again: Position = match fen.parse() {
            Ok(again) => again,
            Err(err) => panic!("{text:?} read, but its FEN {fen} does not: {err}"),
        };
        assert_eq!(again, position, "{text:?} -> {fen}");
        assert_eq!(again.fen(), fen);
        assert_eq!(position.incremental_hash(), position.hash_from_scratch());
        // Every legal sub-move of an accepted position can be played.
        for mv in position.legal_submoves() {
            let next = position.play_unchecked(mv);
            assert_eq!(
                next.fen().parse::<Position>().ok(),
                Some(next),
                "{fen} {mv}"
            );
        }
    }
});
