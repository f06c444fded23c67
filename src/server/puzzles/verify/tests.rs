//! Verification on a scripted analyst whose deeper searches see more.

use super::*;
use crate::rules::Position;
use crate::server::puzzles::scripted::{Scripted, turn};

const ROOKS: &str = "r3k3/8/8/8/8/8/8/R3K3 w - - 0 10";
const LINE: &str = "e1e2,e2e3 a8a1,a1a2";
const LONG_LINE: &str = "e1e2,e2e3 a8a1,a1a2 e3d3,d3c3 a2a4,a4a5";
const DEEP: u64 = 200_000;

fn line(moves: &str) -> PuzzleLine {
    PuzzleLine::parse(ROOKS, moves).unwrap()
}

/// The position after the first `turns` turns of `moves`.
fn at(moves: &str, turns: usize) -> Position {
    let line = line(moves);
    *line.turn_start(turns).unwrap()
}

/// What the finder saw: Black's rook capture is the only winning turn, and White's best
/// reply leaves Black +600.
fn scripted() -> Scripted {
    let mut analyst = Scripted::new();
    analyst
        .at(&at(LONG_LINE, 1))
        .turn("a8a1,a1a2", Score::Cp(600));
    analyst
        .at(&at(LONG_LINE, 2))
        .turn("e3d3,d3c3", Score::Cp(-600))
        .rest(Score::Cp(-700));
    analyst
        .at(&at(LONG_LINE, 3))
        .turn("a2a4,a4a5", Score::Cp(700))
        .rest(Score::Cp(0));
    analyst
}

fn check(analyst: &mut Scripted, moves: &str) -> Result<Verified, Refuted> {
    verify(
        analyst,
        &line(moves),
        PuzzleKind::Advantage,
        &Criteria::default(),
        DEEP,
    )
}

#[test]
fn a_line_the_deeper_search_agrees_with_is_kept() {
    let mut analyst = scripted();
    let verified = check(&mut analyst, LONG_LINE).unwrap();
    assert_eq!(verified.find_nodes, FIND_NODES_START);
}

#[test]
fn a_reply_only_the_deeper_search_sees_drops_the_line() {
    let mut analyst = scripted();
    // From 100 000 nodes on, White sees a reply that holds the game.
    analyst
        .at(&at(LONG_LINE, 2))
        .seen_from("e3d2,d2c2", Score::Cp(0), 100_000);
    assert_eq!(
        check(&mut analyst, LONG_LINE),
        Err(Refuted::ReplyHolds {
            turn: 2,
            score: Score::Cp(0)
        })
    );
}

#[test]
fn a_second_solution_the_deeper_search_sees_drops_the_line() {
    let mut analyst = scripted();
    analyst
        .at(&at(LINE, 1))
        .seen_from("a8a1,a1b1", Score::Cp(580), 100_000);
    assert_eq!(check(&mut analyst, LINE), Err(Refuted::NotOnly { turn: 1 }));
}

#[test]
fn a_better_turn_the_deeper_search_sees_drops_the_line() {
    let mut analyst = scripted();
    analyst
        .at(&at(LINE, 1))
        .seen_from("a8a1,a1b1", Score::Cp(2000), 100_000);
    assert_eq!(
        check(&mut analyst, LINE),
        Err(Refuted::OtherBest {
            turn: 1,
            best: turn("a8a1,a1b1")
        })
    );
}

#[test]
fn a_first_turn_seen_only_by_a_deep_search_is_measured_as_hard() {
    // Below 4096 nodes the rook capture is not seen: every turn looks equal.
    let mut hidden = Scripted::new();
    hidden
        .at(&at(LINE, 1))
        .seen_from("a8a1,a1a2", Score::Cp(600), 4096);
    hidden
        .at(&at(LINE, 2))
        .turn("e3d3,d3c3", Score::Cp(-600))
        .rest(Score::Cp(-700));
    assert_eq!(check(&mut hidden, LINE).unwrap().find_nodes, 4096);
}
