//! `Engine::search_excluding`: the best of the root sub-moves not excluded, what the puzzle
//! generator's second-best turn is made of. Every search here is bounded by depth or nodes.

use std::sync::atomic::AtomicBool;

use marseillais::engine::{Engine, Limits, Score, SearchResult};
use marseillais::rules::{Game, Position, Rank, Rules, SubMove};

/// Back rank: Ra8# and Re8# both mate on S1.
const TWO_MATES: &str = "6k1/5ppp/8/8/8/8/8/R3R1K1 w - - 0 5";

fn game(fen: &str) -> Game {
    Game::new(Position::from_fen(fen, Rules::Marseillais).unwrap())
}

fn mv(uci: &str) -> SubMove {
    uci.parse().unwrap()
}

fn search(engine: &mut Engine, game: &Game, excluded: &[SubMove]) -> SearchResult {
    let stop = AtomicBool::new(false);
    engine.search_excluding(game, &Limits::depth(4), excluded, &stop, |_| {})
}

fn score(result: &SearchResult) -> Score {
    result.info.as_ref().unwrap().score
}

#[test]
fn with_one_of_two_mates_excluded_the_search_finds_the_other() {
    let g = game(TWO_MATES);
    let mut engine = Engine::new();
    let first = search(&mut engine, &g, &[]);
    assert_eq!(score(&first), Score::Mate(1));
    let mate = first.best.unwrap();
    let other = if mate == mv("a1a8") {
        mv("e1e8")
    } else {
        mv("a1a8")
    };
    let second = search(&mut engine, &g, &[mate]);
    assert_eq!(second.best, Some(other));
    assert_eq!(score(&second), Score::Mate(1));
}

#[test]
fn with_both_mates_excluded_the_search_answers_another_sub_move() {
    let g = game(TWO_MATES);
    let mut engine = Engine::new();
    let result = search(&mut engine, &g, &[mv("a1a8"), mv("e1e8")]);
    let best = result.best.unwrap();
    assert!(best != mv("a1a8") && best != mv("e1e8"));
    // A quiet S1 and a mate on S2 is still a mate in this turn: two sub-moves.
    assert_eq!(score(&result), Score::Mate(2));
}

#[test]
fn excluding_every_legal_sub_move_answers_no_move() {
    let g = game(TWO_MATES);
    let every: Vec<SubMove> = g.legal_submoves().to_vec();
    let mut engine = Engine::new();
    let result = search(&mut engine, &g, &every);
    assert_eq!(result.best, None);
    assert_eq!(result.info, None);
}

#[test]
fn an_excluded_search_leaves_the_table_right_for_the_next_search() {
    // The restricted root score is never stored: a plain search right after, on the same
    // engine and table, still sees the mate the restricted one was forbidden.
    let g = game(TWO_MATES);
    let mut engine = Engine::new();
    search(&mut engine, &g, &[mv("a1a8"), mv("e1e8")]);
    let plain = search(&mut engine, &g, &[]);
    assert_eq!(score(&plain), Score::Mate(1));
}

#[test]
fn excluding_nothing_is_the_plain_search() {
    let g = game("r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4");
    let stop = AtomicBool::new(false);
    let limits = Limits::nodes(30_000);
    let plain = Engine::new().search(&g, &limits, &stop, |_| {});
    let excluding = Engine::new().search_excluding(&g, &limits, &[], &stop, |_| {});
    assert_eq!(plain, excluding);
}

#[test]
fn an_excluded_sub_move_is_left_out_at_the_root_only() {
    // Ra8 is excluded at the root, not below it: a quiet S1 and the rook's mate on S2.
    let g = game("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 5");
    let mut engine = Engine::new();
    let result = search(&mut engine, &g, &[mv("a1a8")]);
    assert_eq!(score(&result), Score::Mate(2));
    let pv = result.info.unwrap().pv;
    assert_ne!(pv[0], mv("a1a8"));
    assert_eq!(
        pv[1].to.rank(),
        Rank::Eighth,
        "the mate on the back rank: {pv:?}"
    );
}
