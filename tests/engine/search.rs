//! The search inside the rules: exact mates in one and two turns, check ends
//! the turn, the second-move stalemate, and reproducible fixed-node searches.
//! Every search here is bounded by depth or nodes, never by the clock.

use std::sync::atomic::AtomicBool;

use marseillais::engine::{Engine, Feature, Features, Limits, Score, SearchResult};
use marseillais::rules::{Game, Outcome, Position, Rules, SubMove, Termination};

fn pos(fen: &str) -> Position {
    Position::from_fen(fen, Rules::Marseillais).unwrap()
}

fn search(position: Position, limits: Limits) -> (Engine, SearchResult) {
    search_with(position, limits, Features::default())
}

fn search_with(position: Position, limits: Limits, features: Features) -> (Engine, SearchResult) {
    let mut engine = Engine::new();
    engine.set_features(features);
    let stop = AtomicBool::new(false);
    let result = engine.search(&Game::new(position), &limits, &stop, |_| {});
    (engine, result)
}

fn score(result: &SearchResult) -> Score {
    result.info.as_ref().unwrap().score
}

fn is_checkmate(position: &Position) -> bool {
    matches!(
        position.board_outcome(),
        Some(Outcome::Win {
            reason: Termination::Checkmate,
            ..
        })
    )
}

/// Every turn of the side to move: one sub-move when it ends the turn (a
/// check, S2, a single turn), else S1 followed by each S2. A turn with no
/// legal S2 is the second-move stalemate and is left out.
fn turns(position: &Position) -> Vec<Vec<SubMove>> {
    let us = position.side_to_move();
    let mut out = Vec::new();
    for s1 in position.legal_submoves() {
        let after = position.play_unchecked(s1);
        if after.side_to_move() != us {
            out.push(vec![s1]);
        } else {
            for s2 in after.legal_submoves() {
                out.push(vec![s1, s2]);
            }
        }
    }
    out
}

fn play_all(position: &Position, moves: &[SubMove]) -> Position {
    moves.iter().fold(*position, |p, &m| p.play(m).unwrap())
}

/// Brute force: does the side to move have a turn that checkmates?
fn mates_in_one_turn(position: &Position) -> bool {
    turns(position)
        .iter()
        .any(|t| is_checkmate(&play_all(position, t)))
}

#[test]
fn finds_checkmate_on_the_first_submove() {
    let start = pos("k7/8/1K6/8/8/8/7Q/8 w - - 0 5");
    let (_, result) = search(start, Limits::depth(4));
    assert_eq!(score(&result), Score::Mate(1));
    assert!(is_checkmate(&start.play(result.best.unwrap()).unwrap()));
}

#[test]
fn finds_quiet_first_submove_then_mate_on_the_second() {
    let start = pos("7k/1n4pp/8/8/8/8/8/1R4K1 w - - 0 5");
    let (engine, result) = search(start, Limits::depth(4));
    assert_eq!(score(&result), Score::Mate(2));
    let s1 = result.best.unwrap();
    let after = start.play(s1).unwrap();
    assert!(!after.is_check(), "S1 is quiet: the turn goes on");
    let s2 = engine
        .planned_reply(&after)
        .expect("the S1 search plans S2");
    assert!(is_checkmate(&after.play(s2).unwrap()));
}

#[test]
fn finds_mate_in_two_turns_that_brute_force_confirms() {
    let start = pos("7k/8/8/4K3/8/8/8/1R6 w - - 0 5");
    assert!(!mates_in_one_turn(&start), "not a mate in one turn");
    let (_, result) = search(start, Limits::depth(6));
    let Score::Mate(n) = score(&result) else {
        panic!("expected a mate score, got {:?}", score(&result));
    };
    assert!(
        (3..=6).contains(&n),
        "mate in two turns is 3 to 6 sub-moves, got {n}"
    );
    // The PV's first turn: whatever the defender's turn, a mate in one turn follows.
    let pv = &result.info.as_ref().unwrap().pv;
    let first_turn: Vec<SubMove> =
        if start.play(pv[0]).unwrap().side_to_move() == start.side_to_move() {
            pv[..2].to_vec()
        } else {
            pv[..1].to_vec()
        };
    let after = play_all(&start, &first_turn);
    let replies = turns(&after);
    assert!(!replies.is_empty());
    for reply in replies {
        assert!(
            mates_in_one_turn(&play_all(&after, &reply)),
            "after {first_turn:?} {reply:?} there is no mate in one turn"
        );
    }
}

#[test]
fn defender_sees_it_is_mated_in_two_turns() {
    let start = pos("7k/8/5K2/8/8/8/8/Q7 b - - 0 5");
    for turn in turns(&start) {
        assert!(mates_in_one_turn(&play_all(&start, &turn)));
    }
    let (_, result) = search(start, Limits::depth(6));
    let Score::Mate(n) = score(&result) else {
        panic!("expected a mate score, got {:?}", score(&result));
    };
    assert!(
        (-5..=-3).contains(&n),
        "mated after 3 to 5 sub-moves, got {n}"
    );
}

#[test]
fn check_on_first_submove_ends_the_turn_so_a_knight_fork_wins_nothing() {
    // Nc7+ forks king and rook, but the check ends White's turn and Black
    // moves twice: Kd7 and Kxc7. Were the turn to go on, Nc7+ and Nxa8 would
    // win the rook.
    let start = pos("r3k3/8/8/1N6/8/8/8/4K3 w - - 0 5");
    let (_, result) = search(start, Limits::depth(5));
    assert_ne!(result.best.unwrap().to_string(), "b5c7");
    let Score::Cp(cp) = score(&result) else {
        panic!("no mate here");
    };
    assert!(
        cp < 0,
        "White is down the exchange and wins nothing back: {cp}"
    );
}

#[test]
fn second_move_stalemate_is_an_exact_draw_inside_the_search() {
    // Worked case 8: White's only S1 is g2g3, after which White has no S2:
    // a draw, which saves White a rook down.
    let start = pos("1r5k/8/8/8/6p1/p7/P5P1/K7 w - - 0 5");
    let (_, result) = search(start, Limits::depth(5));
    assert_eq!(result.best.unwrap().to_string(), "g2g3");
    assert_eq!(score(&result), Score::Cp(0));
}

#[test]
fn fixed_node_searches_are_reproducible() {
    let start = pos("r1bqkb1r/pppp1ppp/2n2n2/4p3/4P3/2N2N2/PPPP1PPP/R1BQKB1R w KQkq - 4 4");
    let (_, a) = search(start, Limits::nodes(30_000));
    let (_, b) = search(start, Limits::nodes(30_000));
    let (ia, ib) = (a.info.unwrap(), b.info.unwrap());
    assert_eq!(a.best, b.best);
    assert_eq!(
        (ia.depth, ia.score, ia.nodes, &ia.pv),
        (ib.depth, ib.score, ib.nodes, &ib.pv)
    );
    assert!(ia.nodes <= 30_000);
}

#[test]
fn game_over_gives_no_move() {
    let mated = pos("k6Q/8/1K6/8/8/8/8/8 b - - 0 5");
    let (_, result) = search(mated, Limits::depth(3));
    assert_eq!(result.best, None);
}

/// The mates in one turn of benches/search.rs (time to mate is measured there).
const MATES_IN_ONE_TURN: [&str; 7] = [
    "k7/8/1K6/8/8/8/7Q/8 w - - 0 5",
    "7k/1n4pp/8/8/8/8/8/1R4K1 w - - 0 5",
    "r5k1/5ppp/8/8/8/8/5PPP/4R1K1 w - - 0 5",
    "4k3/8/8/8/8/8/8/KR5R w - - 0 5",
    "7k/8/4K3/8/8/8/8/1R6 w - - 0 5",
    "k7/8/3K4/8/8/8/8/7R w - - 0 5",
    "k7/2P5/1K6/8/8/8/8/8 w - - 0 5",
];

#[test]
fn finds_every_mate_in_one_turn_within_a_few_thousand_nodes() {
    for fen in MATES_IN_ONE_TURN {
        let start = pos(fen);
        assert!(mates_in_one_turn(&start), "{fen} is a mate in one turn");
        let (engine, result) = search(start, Limits::nodes(5_000));
        let s1 = result.best.unwrap();
        let after = start.play(s1).unwrap();
        let end = match engine.planned_reply(&after) {
            Some(s2) => after.play(s2).unwrap(),
            None => after,
        };
        assert!(
            is_checkmate(&end),
            "{fen}: {s1} and its planned S2 do not mate"
        );
        assert!(matches!(score(&result), Score::Mate(1 | 2)), "{fen}");
    }
}

/// At the human pace a lone legal sub-move is played at once (one iteration); the engine pace
/// still searches it for its score.
#[test]
fn at_the_human_pace_a_lone_legal_submove_is_played_at_once() {
    use marseillais::engine::Pace;
    use std::time::Duration;
    // White's king can only take the loose rook.
    let position = pos("k7/8/8/8/8/8/1r6/K7 w - - 0 1");
    assert_eq!(position.legal_submoves().len(), 1);
    let clock = |pace| Limits {
        wtime: Some(Duration::from_secs(60)),
        btime: Some(Duration::from_secs(60)),
        depth: Some(3),
        pace,
        ..Limits::default()
    };
    let (_, human) = search(position, clock(Pace::Human));
    assert_eq!(human.info.as_ref().map(|i| i.depth), Some(1));
    let (_, engine) = search(position, clock(Pace::Engine));
    assert_eq!(engine.info.as_ref().map(|i| i.depth), Some(3));
    assert_eq!(human.best, engine.best);
}

/// The techniques the harness switches (null move, reverse futility and futility, late-move
/// reductions and pruning, aspiration, singular extensions, the capture and continuation
/// histories) cut or reorder lines on the bet that it does not matter; none of them may cut
/// a forced mate. Each alone, and all together, still finds the mates of
/// the tests above with the distances brute force allows.
#[test]
fn every_search_technique_keeps_the_mates_brute_force_confirms() {
    let all = Feature::ALL
        .into_iter()
        .fold(Features::NONE, |set, f| set.with(f, true));
    let sets = Feature::ALL
        .map(|f| Features::NONE.with(f, true))
        .into_iter()
        .chain([all]);
    for features in sets {
        let (_, result) = search_with(
            pos("7k/8/8/4K3/8/8/8/1R6 w - - 0 5"),
            Limits::depth(6),
            features,
        );
        assert!(
            matches!(score(&result), Score::Mate(3..=6)),
            "{features:?}: mate in two turns, got {:?}",
            score(&result)
        );
        let (_, result) = search_with(
            pos("7k/8/5K2/8/8/8/8/Q7 b - - 0 5"),
            Limits::depth(6),
            features,
        );
        assert!(
            matches!(score(&result), Score::Mate(-5..=-3)),
            "{features:?}: mated in two turns, got {:?}",
            score(&result)
        );
        for fen in MATES_IN_ONE_TURN {
            let (_, result) = search_with(pos(fen), Limits::nodes(5_000), features);
            assert!(
                matches!(score(&result), Score::Mate(1 | 2)),
                "{features:?}: {fen}"
            );
        }
    }
}
