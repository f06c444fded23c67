//! Property tests of `Position`: along random legal playouts (from the
//! initial position and from Marseillais FENs at S1, S2 and single phases)
//! every sub-move boundary survives a FEN round trip, the incrementally kept
//! state equals the state computed from scratch, and `play` leaves the
//! original untouched, the legal sub-moves are those of an independent
//! reference; arbitrary text given to the FEN reader never panics.

use crate::reference;

use std::collections::BTreeSet;

use marseillais::rules::perft::perft_bulk;
use marseillais::rules::{PlayError, Position, Square, SubMove, SubMoveList};
use proptest::prelude::*;

/// Starting points: the initial position (single first turn), the same with
/// a two-sub-move first turn, and positions where en passant across
/// sub-moves, castling, promotion and phases `2` and `s` come up quickly.
const STARTS: &[&str] = &[
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 1",
    "4k3/3p1p2/8/4P1P1/8/8/8/4K3 b - - 0 5",
    "4k3/8/8/3pPpP1/8/8/8/4K3 w - d6,f6 0 6",
    "4k3/8/3P4/5pP1/8/8/8/4K3 w - f6 0 6 2",
    "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e3 0 1 2",
    "4k3/8/8/8/8/8/8/R3K3 b - - 0 1 s",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 5",
    "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N w - - 0 5",
    "r3k2r/pp3ppp/8/2pPp3/3p4/8/PPP2PPP/R3K2R w KQkq c6,e6 0 12",
];

/// Mostly empty squares (about 16 pieces on a board), some pawns and minor
/// and major pieces, for random placements.
const PLACEMENT_CHOICES: [char; 40] = [
    '.', '.', '.', '.', '.', '.', '.', '.', '.', '.', '.', '.', '.', '.', '.', '.', '.', '.', '.',
    '.', '.', '.', '.', '.', '.', '.', '.', '.', '.', '.', 'P', 'p', 'P', 'p', 'N', 'n', 'B', 'b',
    'R', 'r',
];

/// The FEN placement field of 64 squares given from a8 to h1 ('.' empty).
fn placement(squares: &[char]) -> String {
    let mut out = String::new();
    for (rank, row) in squares.chunks(8).enumerate() {
        if rank > 0 {
            out.push('/');
        }
        let mut empty = 0;
        for &c in row {
            if c == '.' {
                empty += 1;
            } else {
                if empty > 0 {
                    out.push_str(&empty.to_string());
                    empty = 0;
                }
                out.push(c);
            }
        }
        if empty > 0 {
            out.push_str(&empty.to_string());
        }
    }
    out
}

fn start(index: usize) -> Position {
    let fen = STARTS[index % STARTS.len()];
    fen.parse()
        .unwrap_or_else(|err| panic!("start FEN {fen}: {err}"))
}

fn sorted_moves(position: &Position) -> Vec<String> {
    let set: BTreeSet<String> = position
        .legal_submoves()
        .iter()
        .map(|mv| mv.to_string())
        .collect();
    set.into_iter().collect()
}

/// Everything the properties require of one position.
fn check_position(position: &Position) -> Result<(), TestCaseError> {
    let fen = position.fen();
    let reread: Position = fen
        .parse()
        .map_err(|err| TestCaseError::fail(format!("{fen} does not re-parse: {err}")))?;
    prop_assert_eq!(&reread, position, "FEN round trip of {}", fen);
    prop_assert_eq!(reread.phase(), position.phase());
    prop_assert_eq!(reread.ep_targets(), position.ep_targets());
    prop_assert_eq!(reread.fen(), fen.clone());

    prop_assert_eq!(
        position.incremental_hash(),
        position.hash_from_scratch(),
        "incremental hash drifted at {}",
        fen
    );
    prop_assert_eq!(reread.hash(), position.hash());
    prop_assert_eq!(reread.repetition_key(), position.repetition_key());
    prop_assert_eq!(reread.checkers(), position.checkers());
    prop_assert_eq!(sorted_moves(&reread), sorted_moves(position));

    // The tactical generator is the full list filtered, in the same order.
    let all = position.legal_submoves();
    let mut tactical = SubMoveList::new();
    let any = position.generate_tactical(&mut tactical);
    let filtered: Vec<SubMove> = all
        .iter()
        .copied()
        .filter(|&mv| mv.promotion.is_some() || position.is_capture(mv))
        .collect();
    prop_assert_eq!(tactical.to_vec(), filtered, "tactical sub-moves of {}", fen);
    prop_assert_eq!(any, !all.is_empty(), "any legal sub-move at {}", fen);
    for &mv in &all {
        prop_assert_eq!(
            position.gives_check(mv),
            position.play_unchecked(mv).is_check(),
            "whether {} gives check at {}",
            mv,
            fen
        );
    }
    Ok(())
}

/// Plays `choices` (each picks among the legal sub-moves) from `position`,
/// checking every boundary, and also tries the `probes` as sub-moves that
/// may be illegal.
fn playout(
    mut position: Position,
    choices: &[usize],
    probes: &[(u8, u8)],
) -> Result<(), TestCaseError> {
    check_position(&position)?;
    for (step, &choice) in choices.iter().enumerate() {
        let legal = position.legal_submoves();
        if legal.is_empty() {
            break;
        }
        let mv = legal[choice % legal.len()];
        let before = position;
        let next = position.play_unchecked(mv);
        prop_assert_eq!(position, before, "play_unchecked mutated the original");
        // `play` refuses everything once the game is over (insufficient
        // material or the 75-move rule with moves left); the playout goes on
        // with `play_unchecked`, as perft does, to keep exploring.
        let over = position.board_outcome();
        match (position.play(mv), over) {
            (Ok(played), None) => prop_assert_eq!(played, next),
            (Err(PlayError::GameOver(outcome)), Some(expected)) => {
                prop_assert_eq!(outcome, expected)
            }
            (answer, over) => {
                prop_assert!(
                    false,
                    "{} answered {:?} with outcome {:?}",
                    mv,
                    answer,
                    over
                )
            }
        }
        prop_assert_eq!(position, before, "play mutated the original");

        // A probe sub-move that is not legal must be refused, and the
        // position must stay as it was whatever the answer.
        let (from, to) = probes[step % probes.len()];
        let probe = SubMove::new(Square::index(from as usize), Square::index(to as usize));
        match position.play(probe) {
            Ok(_) => prop_assert!(legal.contains(&probe), "{probe} accepted but not legal"),
            Err(PlayError::GameOver(_)) => prop_assert!(over.is_some()),
            Err(_) => prop_assert!(!legal.contains(&probe), "legal {probe} refused"),
        }
        prop_assert_eq!(position, before, "a refused play mutated the original");

        position = next;
        check_position(&position)?;
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn playouts_keep_fen_hash_checkers_and_moves_consistent(
        start_index in 0usize..STARTS.len(),
        choices in prop::collection::vec(any::<usize>(), 0..60),
        probes in prop::collection::vec((0u8..64, 0u8..64), 1..8),
    ) {
        playout(start(start_index), &choices, &probes)?;
    }

    #[test]
    fn arbitrary_strings_never_panic_the_fen_reader(text in any::<String>()) {
        if let Ok(position) = text.parse::<Position>() {
            check_position(&position)?;
        }
    }

    #[test]
    fn fen_shaped_strings_never_panic_and_round_trip_when_accepted(
        text in concat!(
            "[pnbrqkPNBRQK1-9/]{0,72} [wb-] (-|K?Q?k?q?) ",
            "(-|[a-h][1-8](,[a-h][1-8]){0,2}) [0-9]{1,3} [0-9]{1,3}( [12sx])?"
        ),
    ) {
        if let Ok(position) = text.parse::<Position>() {
            check_position(&position)?;
        }
    }

    #[test]
    fn random_placements_with_any_fields_never_panic_and_round_trip_when_accepted(
        squares in prop::collection::vec(prop::sample::select(&PLACEMENT_CHOICES[..]), 64),
        kings in (0usize..64, 0usize..64),
        side in prop::sample::select(&["w", "b"][..]),
        castling in prop::sample::select(&["-", "-", "-", "-", "-", "-", "-", "KQkq"][..]),
        ep in prop::sample::select(&["-", "-", "-", "-", "d6", "e3", "c6,e6", "d6,f6"][..]),
        counters in prop::sample::select(&["0 1", "0 5", "99 40", "149 80", "3 1"][..]),
        phase in prop::sample::select(&["", " 1", " 2", " s"][..]),
    ) {
        // Always well-formed placement with one king each (unless they
        // collide), so that most inputs reach the deeper checks.
        let mut board = squares;
        for (index, square) in board.iter_mut().enumerate() {
            let back_rank = !(8..56).contains(&index);
            if back_rank && (*square == 'P' || *square == 'p') {
                *square = '.';
            }
        }
        board[kings.0] = 'K';
        board[kings.1] = 'k';
        let text = format!(
            "{} {side} {castling} {ep} {counters}{phase}",
            placement(&board)
        );
        if let Ok(position) = text.parse::<Position>() {
            check_position(&position)?;
            playout(position, &[0, 7, 3, 11, 5, 2], &[(12, 28)])?;
        }
    }

    #[test]
    fn mutated_real_fens_never_panic_and_round_trip_when_accepted(
        start_index in 0usize..STARTS.len(),
        choices in prop::collection::vec(any::<usize>(), 0..20),
        edits in prop::collection::vec((any::<usize>(), prop::char::range(' ', '~')), 1..4),
    ) {
        // Reach a real position, then change a few characters of its FEN.
        let mut position = start(start_index);
        for choice in choices {
            let legal = position.legal_submoves();
            if legal.is_empty() {
                break;
            }
            position = position.play_unchecked(legal[choice % legal.len()]);
        }
        let mut chars: Vec<char> = position.fen().chars().collect();
        for (at, c) in edits {
            let index = at % chars.len();
            chars[index] = c;
        }
        let text: String = chars.into_iter().collect();
        if let Ok(parsed) = text.parse::<Position>() {
            check_position(&parsed)?;
        }
    }
}

proptest! {
    // Fewer cases: the reference is slow in debug builds (perft 2 at every step).
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn playouts_agree_with_the_reference_move_generator(
        start_index in 0usize..STARTS.len(),
        choices in prop::collection::vec(any::<usize>(), 0..40),
    ) {
        // The reference (tests/reference) keeps the turn
        // state its own way; it is rebuilt from the engine's FEN at every
        // sub-move, so the FEN must carry everything the next sub-moves need.
        let mut position = start(start_index);
        for choice in choices {
            let fen = position.fen();
            let state = reference::State::from_fen(&fen, false);
            let mut theirs: Vec<String> =
                state.children().into_iter().map(|child| child.uci).collect();
            theirs.sort();
            prop_assert_eq!(sorted_moves(&position), theirs, "legal sub-moves of {}", fen);
            prop_assert_eq!(perft_bulk(&position, 2), reference::perft(&state, 2), "{}", fen);
            let legal = position.legal_submoves();
            if legal.is_empty() {
                break;
            }
            position = position.play_unchecked(legal[choice % legal.len()]);
        }
    }
}
