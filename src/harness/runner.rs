//! A match: pairs of games between two players, each pair from one opening with the colours
//! swapped, played on several threads and counted in pair order, so that a match at fixed
//! nodes decides the same at any concurrency. With an [`Sprt`] it stops at the first pair
//! whose count takes the LLR out of the bounds; without, after `max_pairs`.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use crate::engine::Pace;
use crate::engine::level::splitmix;
use crate::rules::{Color, Game, Position, SubMove};

use super::book::Book;
use super::game::{self, Control, Ending};
use super::player::{Player, Spec};
use super::sprt::{EloEstimate, GameScore, Pentanomial, Sprt, Verdict, estimate};

/// Where each pair's game starts.
#[derive(Clone, Debug)]
pub enum Openings {
    /// A book's positions, in an order drawn from the seed.
    Book(Book),
    /// This many random sub-moves from the initial position, drawn from the pair's seed.
    Random { submoves: u32 },
}

/// What a match is.
#[derive(Clone, Debug)]
pub struct MatchTerms {
    pub a: Spec,
    pub b: Spec,
    pub control: Control,
    /// How a clock is spent: as an engine (a test of strength) or as a person (the server's pace).
    pub pace: Pace,
    pub openings: Openings,
    pub seed: u64,
    /// The match ends after this many pairs if no test decided first.
    pub max_pairs: u64,
    /// Games played at once (threads).
    pub concurrency: usize,
    /// A game still going after this many sub-moves is a draw.
    pub max_submoves: usize,
    /// Each engine's transposition table.
    pub hash_mb: usize,
    pub sprt: Option<Sprt>,
}

/// One game of a pair, from the first player's side.
#[derive(Clone, Debug)]
pub struct GameRecord {
    pub a_white: bool,
    pub score: GameScore,
    pub ending: Ending,
    pub moves: Vec<SubMove>,
    /// Each turn's thinking time, with whether `a` played it.
    pub turns: Vec<(bool, Duration)>,
}

/// A pair: the first player as White, then as Black, from the same opening.
#[derive(Clone, Debug)]
pub struct PairRecord {
    pub index: u64,
    pub games: [GameRecord; 2],
}

/// Where the match stands after a pair.
#[derive(Clone, Copy, Debug)]
pub struct Standing {
    pub results: Pentanomial,
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    pub llr: Option<f64>,
    pub verdict: Option<Verdict>,
    pub estimate: EloEstimate,
}

/// Plays the match; `on_pair` sees each pair counted, in order, with the standing after it.
pub fn run(terms: &MatchTerms, mut on_pair: impl FnMut(&PairRecord, &Standing)) -> Standing {
    let next = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    let mut standing = Standing {
        results: Pentanomial::default(),
        wins: 0,
        draws: 0,
        losses: 0,
        llr: terms.sprt.map(|_| 0.0),
        verdict: None,
        estimate: estimate(&Pentanomial::default()),
    };
    std::thread::scope(|scope| {
        let (sender, receiver) = mpsc::channel::<PairRecord>();
        for _ in 0..terms.concurrency.max(1) {
            let sender = sender.clone();
            let (next, stop) = (&next, &stop);
            scope.spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    if index >= terms.max_pairs {
                        break;
                    }
                    if sender.send(play_pair(terms, index)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(sender);
        // Pairs finish out of order; they are counted in order.
        let mut waiting: BTreeMap<u64, PairRecord> = BTreeMap::new();
        let mut counted = 0u64;
        for pair in receiver {
            waiting.insert(pair.index, pair);
            while let Some(pair) = waiting.remove(&counted) {
                counted += 1;
                if standing.verdict.is_some() {
                    continue;
                }
                count(terms, &mut standing, &pair);
                on_pair(&pair, &standing);
                if standing.verdict.is_some() {
                    stop.store(true, Ordering::Relaxed);
                }
            }
        }
    });
    standing
}

fn count(terms: &MatchTerms, standing: &mut Standing, pair: &PairRecord) {
    let [first, second] = [pair.games[0].score, pair.games[1].score];
    standing.results.add(first, second);
    for score in [first, second] {
        match score {
            GameScore::Win => standing.wins += 1,
            GameScore::Draw => standing.draws += 1,
            GameScore::Loss => standing.losses += 1,
        }
    }
    standing.estimate = estimate(&standing.results);
    if let Some(test) = terms.sprt {
        let llr = test.llr(&standing.results);
        standing.llr = Some(llr);
        standing.verdict = test.verdict(llr);
    }
}

/// Pair `index`: its opening, then a game with each colour; each player seeded from the pair.
pub fn play_pair(terms: &MatchTerms, index: u64) -> PairRecord {
    let pair_seed = pair_seed(terms, index);
    let start = pair_start(terms, index);
    let games = [true, false].map(|a_white| {
        let game_seed = splitmix(pair_seed ^ u64::from(a_white));
        let mut a = Player::new(&terms.a, game_seed, terms.hash_mb);
        let mut b = Player::new(&terms.b, splitmix(game_seed), terms.hash_mb);
        let (white, black) = if a_white {
            (&mut a, &mut b)
        } else {
            (&mut b, &mut a)
        };
        let played = game::play(
            start.clone(),
            (white, black),
            terms.control,
            terms.pace,
            terms.max_submoves,
        );
        let a_color = if a_white { Color::White } else { Color::Black };
        let score = match played.winner {
            None => GameScore::Draw,
            Some(side) if side == a_color => GameScore::Win,
            Some(_) => GameScore::Loss,
        };
        GameRecord {
            a_white,
            score,
            ending: played.ending,
            moves: played.game.submoves()[start.submove_count()..].to_vec(),
            turns: played
                .turns
                .iter()
                .map(|&(side, time)| (side == a_color, time))
                .collect(),
        }
    });
    PairRecord { index, games }
}

fn pair_seed(terms: &MatchTerms, index: u64) -> u64 {
    splitmix(terms.seed ^ index.wrapping_mul(0xA24B_AED4_963E_E407))
}

/// The opening pair `index` of a match starts from (both of its games): what a reader of the
/// pair's sub-moves replays them from.
pub fn pair_start(terms: &MatchTerms, index: u64) -> Game {
    match &terms.openings {
        Openings::Book(book) => Game::new(book.opening(terms.seed, index)),
        Openings::Random { submoves } => random_opening(pair_seed(terms, index), *submoves),
    }
}

/// A random opening of `submoves` sub-moves, the same for both games of a pair. Openings
/// after which the side to move mates at once are drawn again (bounded): they would decide
/// the game before either player chose a move.
pub fn random_opening(seed: u64, submoves: u32) -> Game {
    let mut rng = seed;
    for _ in 0..100 {
        rng = splitmix(rng);
        let game = random_walk(rng, submoves);
        if game.outcome().is_none() && !mates_in_one_turn(game.position()) {
            return game;
        }
    }
    Game::new(Position::initial())
}

/// Brute force: does the side to move have a turn that checkmates?
fn mates_in_one_turn(position: &Position) -> bool {
    let us = position.side_to_move();
    let mated = |p: &Position| p.is_check() && !p.has_legal_submove();
    position.legal_submoves().into_iter().any(|s1| {
        let after = position.play_unchecked(s1);
        if after.side_to_move() != us {
            mated(&after)
        } else {
            after
                .legal_submoves()
                .into_iter()
                .any(|s2| mated(&after.play_unchecked(s2)))
        }
    })
}

fn random_walk(seed: u64, submoves: u32) -> Game {
    let mut game = Game::new(Position::initial());
    let mut rng = seed;
    for _ in 0..submoves {
        let moves = game.position().legal_submoves();
        if moves.is_empty() || game.outcome().is_some() {
            break;
        }
        rng = splitmix(rng);
        let mv = moves[(rng % moves.len() as u64) as usize];
        if game.play(mv).is_err() {
            break;
        }
    }
    game
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::sprt::Sprt;

    fn terms(concurrency: usize, sprt: Option<Sprt>) -> MatchTerms {
        MatchTerms {
            a: "level:3".parse().expect("spec"),
            b: "level:1".parse().expect("spec"),
            control: Control::Nodes(1_500),
            pace: Pace::Engine,
            openings: Openings::Random { submoves: 5 },
            seed: 3,
            max_pairs: 6,
            concurrency,
            max_submoves: 200,
            hash_mb: 1,
            sprt,
        }
    }

    fn summary(terms: &MatchTerms) -> (Vec<(u64, Vec<SubMove>)>, Pentanomial) {
        let mut pairs = Vec::new();
        let standing = run(terms, |pair, _| {
            pairs.push((pair.index, pair.games[0].moves.clone()));
        });
        (pairs, standing.results)
    }

    #[test]
    fn pairs_are_counted_in_order_and_the_threads_change_no_game() {
        let (one, results) = summary(&terms(1, None));
        let (two, same) = summary(&terms(2, None));
        assert_eq!(one, two);
        assert_eq!(results, same);
        assert_eq!(results.pairs(), 6);
        let order: Vec<u64> = one.iter().map(|(index, _)| *index).collect();
        assert_eq!(order, (0..6).collect::<Vec<_>>());
    }

    #[test]
    fn a_test_stops_the_match_at_the_pair_that_decides_it() {
        // Bounds so far apart, and error rates so loose, that a few decisive pairs settle it.
        let test = Sprt::new(-300.0, 300.0, 0.25, 0.25).expect("terms");
        let mut all = Vec::new();
        run(&terms(1, None), |pair, _| {
            all.push([pair.games[0].score, pair.games[1].score])
        });
        let mut results = Pentanomial::default();
        let deciding = all.iter().position(|[first, second]| {
            results.add(*first, *second);
            test.verdict(test.llr(&results)).is_some()
        });
        let mut seen = 0;
        let standing = run(&terms(2, Some(test)), |_, _| seen += 1);
        match deciding {
            Some(index) => {
                assert_eq!(seen, index as u64 + 1);
                assert!(standing.verdict.is_some());
            }
            None => {
                assert_eq!(seen, 6);
                assert_eq!(standing.verdict, None);
            }
        }
        assert_eq!(standing.results.pairs(), seen);
    }
}
