//! The finder's rules on a scripted analyst: which positions are puzzles, how a line goes on
//! and ends, and that a position is tried once.

use std::collections::HashSet;

use super::*;
use crate::rules::Rules;
use crate::server::puzzles::scripted::{Scripted, turn};

/// Two rooks and two kings, White to move: material level.
const ROOKS: &str = "r3k3/8/8/8/8/8/8/R3K3 w - - 0 10";
/// White's turn that hands Black the chance (the king walks off).
const BLUNDER: &str = "e1e2,e2e3";
/// Black takes the rook.
const WIN: &str = "a8a1,a1a2";
/// Another Black turn.
const OTHER_WIN: &str = "a8a1,a1b1";

/// Black's back-rank mate: after White's knight leaves c2, Ra1 mates (White has a bishop
/// more, so Black is down in material).
const BACK_RANK: &str = "B5k1/5ppp/8/8/8/8/r1N2PPP/6K1 w - - 0 20";
const KNIGHT_AWAY: &str = "c2d4,d4f5";

fn position(fen: &str) -> Position {
    Position::from_fen(fen, Rules::Marseillais).unwrap()
}

/// The game from `fen` with `turns` played, and the position after each turn.
fn game(fen: &str, turns: &[&str]) -> (Game, Vec<Position>) {
    let mut game = Game::new(position(fen));
    let mut after = vec![*game.position()];
    for text in turns {
        play_turn(&mut game, &turn(text)).unwrap();
        after.push(*game.position());
    }
    (game, after)
}

fn find_all(analyst: &mut Scripted, game: &Game) -> GameFinding {
    find(analyst, game, &Criteria::default(), &mut HashSet::new())
}

/// Black wins the rook with one turn; every other turn scores 0, White's best reply leaves
/// Black +600.
fn rook_blunder() -> (Scripted, Game, Vec<Position>) {
    let (game, at) = game(ROOKS, &[BLUNDER]);
    let mut analyst = Scripted::new();
    analyst.at(&at[1]).turn(WIN, Score::Cp(600));
    let mut after_win = Game::new(at[1]);
    play_turn(&mut after_win, &turn(WIN)).unwrap();
    analyst
        .at(after_win.position())
        .turn("e3d3,d3c3", Score::Cp(-600))
        .rest(Score::Cp(-700));
    (analyst, game, at)
}

#[test]
fn a_position_with_one_winning_turn_is_found() {
    let (mut analyst, game, _) = rook_blunder();
    let finding = find_all(&mut analyst, &game);
    assert_eq!(finding.found.len(), 1, "{finding:?}");
    let found = &finding.found[0];
    assert_eq!(found.kind, PuzzleKind::Advantage);
    assert_eq!(found.line.moves_text(), format!("{BLUNDER} {WIN}"));
    assert_eq!(found.line.start().fen(), position(ROOKS).fen());
    assert_eq!(found.turn_start, 0);
    assert!(found.win_chance_gain > 0.3, "{}", found.win_chance_gain);
}

#[test]
fn a_position_with_two_equally_winning_turns_is_not_found() {
    let (mut analyst, game, at) = rook_blunder();
    analyst.at(&at[1]).turn(OTHER_WIN, Score::Cp(590));
    let finding = find_all(&mut analyst, &game);
    assert_eq!(finding.candidates, vec![PuzzleKind::Advantage]);
    assert!(finding.found.is_empty(), "{finding:?}");
}

#[test]
fn a_second_turn_that_wins_a_little_less_by_a_clear_margin_still_leaves_one_puzzle() {
    let (mut analyst, game, at) = rook_blunder();
    // 600 cp is 0.80 of winning chances; 30 cp is 0.06: the margin is above 0.7.
    analyst.at(&at[1]).turn(OTHER_WIN, Score::Cp(30));
    assert_eq!(find_all(&mut analyst, &game).found.len(), 1);
}

#[test]
fn a_position_already_won_before_the_opponents_turn_is_not_a_puzzle() {
    let (game, at) = game(BACK_RANK, &[KNIGHT_AWAY]);
    let mut analyst = Scripted::new();
    analyst.at(&at[1]).turn("a2a1", Score::Mate(1));
    // Given the chance, the mate is a puzzle ...
    let finding = find_all(&mut analyst, &game);
    assert_eq!(finding.found.len(), 1, "{finding:?}");
    assert_eq!(finding.found[0].kind, PuzzleKind::Mate);
    assert_eq!(
        finding.found[0].line.moves_text(),
        format!("{KNIGHT_AWAY} a2a1")
    );
    // ... not when Black was already 4 pawns up before White's turn.
    analyst.at(&at[0]).eval(Score::Cp(-400));
    let finding = find_all(&mut analyst, &game);
    assert!(finding.candidates.is_empty());
    assert!(finding.found.is_empty());
}

#[test]
fn at_a_mate_in_one_turn_other_mates_are_fine_but_a_winning_non_mate_is_not() {
    let (game, at) = game(BACK_RANK, &[KNIGHT_AWAY]);
    let mut analyst = Scripted::new();
    // Every quiet S1 followed by Ra1# mates too: still one puzzle.
    analyst.at(&at[1]).turn("a2a1", Score::Mate(1));
    assert_eq!(find_all(&mut analyst, &game).found.len(), 1);
    // A turn that keeps no mate but wins 8 pawns makes it two solutions.
    analyst.at(&at[1]).rest(Score::Cp(800));
    assert!(find_all(&mut analyst, &game).found.is_empty());
}

#[test]
fn a_position_up_in_material_is_not_a_puzzle() {
    // The same blunder with Black a knight up: winning the rook is no chance given.
    let (game, at) = game("r3k2n/8/8/8/8/8/8/R3K3 w - - 0 10", &["e1e2,e2e3"]);
    let mut analyst = Scripted::new();
    analyst.at(&at[1]).turn(WIN, Score::Cp(900));
    assert!(find_all(&mut analyst, &game).candidates.is_empty());
}

#[test]
fn the_line_goes_on_while_the_solvers_next_turn_is_again_the_only_one() {
    let (mut analyst, game, at) = rook_blunder();
    let mut line = Game::new(at[1]);
    for text in [WIN, "e3d3,d3c3"] {
        play_turn(&mut line, &turn(text)).unwrap();
    }
    analyst
        .at(line.position())
        .turn("a2a4,a4a5", Score::Cp(700))
        .rest(Score::Cp(0));
    play_turn(&mut line, &turn("a2a4,a4a5")).unwrap();
    analyst.at(line.position()).rest(Score::Cp(-700));
    let finding = find_all(&mut analyst, &game);
    assert_eq!(
        finding.found[0].line.moves_text(),
        format!("{BLUNDER} {WIN} e3d3,d3c3 a2a4,a4a5")
    );
    assert_eq!(finding.found[0].line.solver_turns(), 2);
}

#[test]
fn a_reply_that_holds_gives_the_advantage_line_up() {
    let (mut analyst, game, at) = rook_blunder();
    let mut after_win = Game::new(at[1]);
    play_turn(&mut after_win, &turn(WIN)).unwrap();
    analyst.at(after_win.position()).rest(Score::Cp(0));
    assert!(find_all(&mut analyst, &game).found.is_empty());
}

#[test]
fn the_only_turn_that_holds_after_a_threat_is_a_defence() {
    // Black holds with one turn (0); every other loses 9 pawns; Black played another.
    let (game, at) = game(ROOKS, &[BLUNDER, "e8d8,d8c8"]);
    let mut analyst = Scripted::new();
    analyst
        .at(&at[1])
        .turn("a8a7,a7a6", Score::Cp(0))
        .rest(Score::Cp(-900));
    analyst.at(&at[2]).eval(Score::Cp(900));
    let finding = find_all(&mut analyst, &game);
    assert_eq!(finding.found.len(), 1, "{finding:?}");
    assert_eq!(finding.found[0].kind, PuzzleKind::Defence);
    assert_eq!(
        finding.found[0].line.moves_text(),
        format!("{BLUNDER} a8a7,a7a6")
    );
}

#[test]
fn a_defence_is_looked_for_only_where_the_player_went_wrong() {
    let (game, at) = game(ROOKS, &[BLUNDER, "e8d8,d8c8"]);
    let mut analyst = Scripted::new();
    analyst
        .at(&at[1])
        .turn("a8a7,a7a6", Score::Cp(0))
        .rest(Score::Cp(-900));
    // The turn played held as well (White is not better after it).
    assert!(find_all(&mut analyst, &game).candidates.is_empty());
}

#[test]
fn a_position_tried_once_is_not_tried_again() {
    let (mut analyst, game, _) = rook_blunder();
    let mut seen = HashSet::new();
    let first = find(&mut analyst, &game, &Criteria::default(), &mut seen);
    assert_eq!(first.found.len(), 1);
    let again = find(&mut analyst, &game, &Criteria::default(), &mut seen);
    assert!(again.candidates.is_empty() && again.found.is_empty());
}

#[test]
fn material_and_keys_ignore_the_move_counters() {
    let a = position("r3k3/8/8/8/8/8/8/R3K3 w - - 0 10");
    let b = position("r3k3/8/8/8/8/8/8/R3K3 w - - 7 31");
    assert_eq!(position_key(&a), position_key(&b));
    assert_eq!(material_diff(&position(BACK_RANK), Color::Black), -1);
}
