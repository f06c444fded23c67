//! Property tests of `Game`'s cache: along random playouts with takebacks,
//! what the game judged once when a position was reached (legal list,
//! ending, repetition count, claims) equals what is computed from scratch
//! from the replayed record, and a preview changes nothing until applied.

use marseillais::rules::outcome::Termination;
use marseillais::rules::{Game, GameError, Outcome, Position};
use proptest::prelude::*;

/// The initial position, Marseillais FENs at S1 and S2, and sparse boards
/// where random sub-moves repeat positions (knights, rooks and kings) and
/// where captures and pawn moves clear the repetition history.
const STARTS: &[&str] = &[
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "4k3/8/3P4/5pP1/8/8/8/4K3 w - f6 0 6 2",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 5",
    "1n2k1n1/8/8/8/8/8/8/1N2K1N1 w - - 0 5",
    "r3k3/8/8/8/8/8/8/R3K2N w - - 0 5",
    "4k3/p7/8/8/8/8/P7/4K1N1 w - - 90 5",
];

/// The ending the record shows, recomputed from every position of it.
fn reference_outcome(game: &Game) -> (Option<Outcome>, usize) {
    let positions = game.positions();
    let current = positions[positions.len() - 1];
    let repetitions = if current.is_turn_start() {
        let key = current.repetition_key();
        positions
            .iter()
            .filter(|p| p.is_turn_start() && p.repetition_key() == key)
            .count()
    } else {
        0
    };
    let outcome = current.board_outcome().or_else(|| {
        (repetitions >= 5).then_some(Outcome::Draw {
            reason: Termination::FivefoldRepetition,
        })
    });
    (outcome, repetitions)
}

fn check_cache(game: &Game) -> Result<(), TestCaseError> {
    let position = *game.position();
    prop_assert_eq!(game.positions().last().copied(), Some(position));
    let legal = position.legal_submoves();
    prop_assert_eq!(game.legal_submoves(), legal.as_slice());
    let (outcome, repetitions) = reference_outcome(game);
    prop_assert_eq!(game.automatic_outcome(), outcome, "{}", position.fen());
    prop_assert_eq!(game.repetition_count(), repetitions, "{}", position.fen());
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn the_cached_legal_list_outcome_and_repetitions_match_a_replay(
        index in 0..STARTS.len(),
        choices in prop::collection::vec(any::<u16>(), 0..300),
    ) {
        let start: Position = STARTS[index].parse().expect("test FEN");
        let mut game = Game::new(start);
        check_cache(&game)?;
        for choice in choices {
            if game.outcome().is_some() {
                break;
            }
            if choice % 5 == 0 && game.takeback_first_submove().is_ok() {
                check_cache(&game)?;
                continue;
            }
            let legal = game.legal_submoves().to_vec();
            // Most choices pick among the first two sub-moves only (king
            // steps come first), a small walk that repeats positions often
            // enough to reach threefold and fivefold.
            let width = if choice & 0xE000 != 0 { legal.len().min(2) } else { legal.len() };
            let mv = legal[usize::from(choice) % width];
            let before = game.clone();
            let preview = game.preview(mv).expect("a legal sub-move previews");
            // Trying changes nothing.
            prop_assert_eq!(game.submoves(), before.submoves());
            prop_assert_eq!(game.position(), before.position());
            prop_assert_eq!(game.outcome(), before.outcome());
            prop_assert_eq!(preview.position(), &before.position().play_unchecked(mv));
            prop_assert_eq!(game.san(&preview), before.position().san(mv));
            let outcome = preview.outcome();
            let next = *preview.position();
            game.play_previewed(preview).expect("fresh");
            prop_assert_eq!(game.position(), &next);
            prop_assert_eq!(game.automatic_outcome(), outcome);
            check_cache(&game)?;
        }
    }
}

#[test]
fn a_preview_made_before_the_game_changed_is_refused_and_changes_nothing() {
    let mut game = Game::new(Position::initial());
    let stale = game.preview("e2e4".parse().expect("uci")).expect("legal");
    game.play("d2d4".parse().expect("uci")).expect("legal");
    let before = game.clone();
    assert_eq!(game.play_previewed(stale), Err(GameError::StalePreview));
    assert_eq!(game.submoves(), before.submoves());
    assert_eq!(game.position(), before.position());
}

#[test]
fn a_preview_made_before_a_takeback_is_refused_even_for_the_same_sub_move() {
    let mut game = Game::new(Position::initial());
    game.play("e2e4".parse().expect("uci")).expect("legal");
    game.play("e7e5".parse().expect("uci")).expect("legal");
    let s2 = game.preview("g8f6".parse().expect("uci")).expect("legal");
    game.takeback_first_submove().expect("S1 can be taken back");
    game.play("e7e5".parse().expect("uci")).expect("legal");
    assert_eq!(game.play_previewed(s2), Err(GameError::StalePreview));
}

#[test]
fn a_preview_of_another_game_is_refused() {
    let mut other = Game::new(Position::initial());
    other.play("d2d4".parse().expect("uci")).expect("legal");
    let foreign = other.preview("d7d5".parse().expect("uci")).expect("legal");
    let mut game = Game::new(Position::initial());
    game.play("e2e4".parse().expect("uci")).expect("legal");
    assert_eq!(game.play_previewed(foreign), Err(GameError::StalePreview));
    assert_eq!(game.submove_count(), 1);
}
