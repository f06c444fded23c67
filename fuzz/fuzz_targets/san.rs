//! Fuzz target `san`: SAN reading against a position never panics, and
//! whatever it accepts is a legal sub-move whose canonical SAN reads back,
//! strictly, as the same sub-move.
//!
//! Input layout: byte 0 picks a start position, byte 1 (mod 8) how many
//! sub-moves to play from it, the next bytes pick those sub-moves, and the
//! rest is the SAN text (lossy UTF-8).
#![no_main]

use libfuzzer_sys::fuzz_target;
use marseillais_fuzz::rules::{Position, san};

const STARTS: &[&str] = &[
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 5",
    "4k3/8/8/3pPpP1/8/8/8/4K3 w - d6,f6 0 6",
    "4k3/8/3P4/5pP1/8/8/8/4K3 w - f6 0 6 2",
    "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N w - - 0 5",
    "2N1N3/1k6/8/8/8/8/6K1/2N1N3 w - - 0 5",
    "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 5",
    "4b2k/3p4/8/4P3/8/8/K7/8 b - - 0 30",
];

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let Ok(mut position) = STARTS[pick as usize % STARTS.len()].parse::<Position>() else {
        return;
    };
    let (count, rest) = rest.split_first().map_or((0, rest), |(&n, r)| (n % 8, r));
    let (choices, text) = rest.split_at((count as usize).min(rest.len()));
    for &choice in choices {
        let legal = position.legal_submoves();
        if legal.is_empty() {
            break;
        }
        position = position.play_unchecked(legal[choice as usize % legal.len()]);
    }
    let text = String::from_utf8_lossy(text);

    let _ = san::parse_checked(&position, &text);
    let _ = san::parse_strict(&position, &text);
    if let Ok(mv) = san::parse(&position, &text) {
        assert!(
            position.legal_submoves().contains(&mv),
            "{text:?} gave illegal {mv}"
        );
        let written = san::san(&position, mv);
        assert_eq!(
            san::parse_strict(&position, &written),
            Ok(mv),
            "{} {written}",
            position.fen()
        );
    }
});
