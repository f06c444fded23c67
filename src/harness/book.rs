//! The opening book of the match harness: balanced positions a few turns into the game, one
//! per pair of games, so that a match measures the players and not the openings' bias.
//!
//! A book is a text file, one extended FEN a line (docs/rules.md section 5), optionally
//! followed by `; cp N` (the score it was kept with); `#` starts a comment. [`make`] draws
//! random games of a few turns from the initial position and keeps those a search of the
//! full engine scores within a margin (after a screening search a tenth as long drops the
//! lopsided ones), in a reproducible order: the same seed and node
//! budget make the same book on any machine.

use std::sync::atomic::AtomicBool;

use crate::engine::level::splitmix;
use crate::engine::{Engine, Limits, Score};
use crate::rules::{Game, Position, Rules};

/// Why a book could not be read.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum BookError {
    #[error("line {line}: {why}")]
    Line { line: usize, why: String },
    #[error("the book has no position")]
    Empty,
}

/// A book's positions, in file order.
#[derive(Clone, Debug)]
pub struct Book {
    positions: Vec<Position>,
}

impl Book {
    /// Reads a book's text; every line must be a position a game can be played from.
    pub fn parse(text: &str) -> Result<Book, BookError> {
        let mut positions = Vec::new();
        for (index, raw) in text.lines().enumerate() {
            let line = raw.split('#').next().unwrap_or("");
            let fen = line.split(';').next().unwrap_or("").trim();
            if fen.is_empty() {
                continue;
            }
            let bad = |why: String| BookError::Line {
                line: index + 1,
                why,
            };
            let position =
                Position::from_fen(fen, Rules::Marseillais).map_err(|e| bad(e.to_string()))?;
            if Game::new(position).outcome().is_some() {
                return Err(bad("the game is already over".into()));
            }
            positions.push(position);
        }
        if positions.is_empty() {
            return Err(BookError::Empty);
        }
        Ok(Book { positions })
    }

    pub fn len(&self) -> usize {
        self.positions.len()
    }

    pub fn is_empty(&self) -> bool {
        self.positions.is_empty()
    }

    /// The opening of pair `pair` in a match seeded `seed`: the book in an order drawn from
    /// the seed (a pass over the whole book before any position repeats).
    pub fn opening(&self, seed: u64, pair: u64) -> Position {
        let len = self.positions.len() as u64;
        let round = pair / len;
        let offset = splitmix(seed ^ round.wrapping_mul(0x9E37_79B9_7F4A_7C15)) % len;
        // A stride coprime with the length visits every position once per round.
        let stride = coprime_stride(len, splitmix(seed.wrapping_add(round)));
        let index = (offset + (pair % len) * stride) % len;
        self.positions[index as usize]
    }
}

/// A stride in 1..len coprime with `len` (1 when none other is), picked from `draw`.
fn coprime_stride(len: u64, draw: u64) -> u64 {
    if len <= 2 {
        return 1;
    }
    let start = 1 + draw % (len - 1);
    (0..len)
        .map(|k| 1 + (start - 1 + k) % (len - 1))
        .find(|&s| gcd(s, len) == 1)
        .unwrap_or(1)
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// What [`make`] is asked for.
#[derive(Clone, Copy, Debug)]
pub struct BookTerms {
    /// Positions to keep.
    pub count: usize,
    /// Turns played from the initial position, each player's turns counted (White's single
    /// first turn is one): drawn evenly from `min_turns..=max_turns`.
    pub min_turns: u32,
    pub max_turns: u32,
    /// The full engine's node budget for the score that decides.
    pub nodes: u64,
    /// Kept when the score is within this many centipawns of equal.
    pub margin_cp: i32,
    pub seed: u64,
    pub threads: usize,
    /// Most candidates drawn (a bound on the work when few are kept).
    pub max_candidates: u64,
}

/// A kept position with its score (centipawns, side to move).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Kept {
    pub fen: String,
    pub cp: i32,
}

/// Draws candidates in batches, scored on `threads` threads, and keeps them in the order
/// drawn: the result depends only on the terms. Returns the kept positions and the number of
/// candidates drawn.
pub fn make(terms: &BookTerms) -> (Vec<Kept>, u64) {
    let threads = terms.threads.max(1);
    let batch = 64 * threads as u64;
    let mut kept: Vec<Kept> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut drawn = 0u64;
    while kept.len() < terms.count && drawn < terms.max_candidates {
        let end = (drawn + batch).min(terms.max_candidates);
        let scored: Vec<Option<Kept>> = std::thread::scope(|scope| {
            let workers: Vec<_> = (0..threads as u64)
                .map(|t| {
                    scope.spawn(move || {
                        let mut engine = Engine::new();
                        (drawn + t..end)
                            .step_by(threads)
                            .map(|index| (index, candidate(&mut engine, terms, index)))
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            let mut all: Vec<(u64, Option<Kept>)> = workers
                .into_iter()
                // A worker's panic is the harness's own bug: raised here, never a book made
                // silently without that worker's candidates.
                .flat_map(|w| w.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
                .collect();
            all.sort_by_key(|(index, _)| *index);
            all.into_iter().map(|(_, k)| k).collect()
        });
        for k in scored.into_iter().flatten() {
            if kept.len() < terms.count && seen.insert(k.fen.clone()) {
                kept.push(k);
            }
        }
        drawn = end;
    }
    (kept, drawn)
}

/// Candidate `index`: a random game of a few turns, scored; `Some` when kept.
fn candidate(engine: &mut Engine, terms: &BookTerms, index: u64) -> Option<Kept> {
    let mut rng = splitmix(terms.seed ^ index.wrapping_mul(0xA24B_AED4_963E_E407));
    let span = u64::from(terms.max_turns.saturating_sub(terms.min_turns)) + 1;
    let turns = terms.min_turns + (rng % span) as u32;
    let mut game = Game::new(Position::initial());
    let mut turns_played = 0;
    // At most two sub-moves a turn: a bounded walk.
    for _ in 0..2 * turns {
        if turns_played == turns {
            break;
        }
        let moves = game.legal_submoves().to_vec();
        if moves.is_empty() || game.outcome().is_some() {
            return None;
        }
        rng = splitmix(rng);
        let side = game.position().side_to_move();
        let mv = moves[(rng % moves.len() as u64) as usize];
        game.play(mv).ok()?;
        if game.position().side_to_move() != side {
            turns_played += 1;
        }
    }
    let position = *game.position();
    if turns_played != turns
        || game.outcome().is_some()
        || position.is_check()
        || !position.is_turn_start()
    {
        return None;
    }
    // Most random games are lopsided: a tenth of the search drops those far from equal
    // first, so that the full search is spent on the ones that may be kept.
    let screen = score(engine, position, terms.nodes / 10)?;
    if screen.abs() > SCREEN_FACTOR * terms.margin_cp {
        return None;
    }
    let cp = score(engine, position, terms.nodes)?;
    (cp.abs() <= terms.margin_cp).then(|| Kept {
        fen: position.fen(),
        cp,
    })
}

/// A candidate passes the screening search within this many times the margin.
const SCREEN_FACTOR: i32 = 3;

/// The full engine's score of `position` in centipawns at `nodes`, from a fresh table; `None`
/// for a mate score.
fn score(engine: &mut Engine, position: Position, nodes: u64) -> Option<i32> {
    engine.new_game();
    let stop = AtomicBool::new(false);
    let result = engine.search(
        &Game::new(position),
        &Limits::nodes(nodes.max(1)),
        &stop,
        |_| {},
    );
    match result.info?.score {
        Score::Cp(cp) => Some(cp),
        Score::Mate(_) => None,
    }
}

/// The book's text: a header saying how it was made, then one `FEN ; cp N` a line.
pub fn write(kept: &[Kept], header: &str) -> String {
    let mut out = String::new();
    for line in header.lines() {
        out.push_str("# ");
        out.push_str(line);
        out.push('\n');
    }
    for k in kept {
        out.push_str(&format!("{} ; cp {}\n", k.fen, k.cp));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

    #[test]
    fn comments_blank_lines_and_scores_are_skipped() {
        let text = format!("# a book\n\n{START} ; cp 3\n  {START}  # again\n");
        let book = Book::parse(&text).expect("book");
        assert_eq!(book.len(), 2);
    }

    #[test]
    fn a_bad_line_is_named_and_an_empty_book_refused() {
        let text = format!("{START}\nnot a fen\n");
        match Book::parse(&text) {
            Err(BookError::Line { line, .. }) => assert_eq!(line, 2),
            other => panic!("{other:?}"),
        }
        assert_eq!(Book::parse("# nothing\n").err(), Some(BookError::Empty));
    }

    #[test]
    fn every_position_is_used_once_before_any_repeats() {
        let fens: Vec<String> = (1..=7)
            .map(|n| format!("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 {n}"))
            .collect();
        let book = Book::parse(&fens.join("\n")).expect("book");
        for seed in [1, 2, 99] {
            let first: std::collections::HashSet<String> =
                (0..7).map(|p| book.opening(seed, p).fen()).collect();
            assert_eq!(first.len(), 7, "seed {seed}");
        }
        assert_eq!(book.opening(5, 3), book.opening(5, 3));
    }

    #[test]
    fn the_same_terms_make_the_same_book_of_balanced_positions() {
        let terms = BookTerms {
            count: 6,
            min_turns: 2,
            max_turns: 4,
            nodes: 3_000,
            margin_cp: 60,
            seed: 11,
            threads: 2,
            max_candidates: 2_000,
        };
        let (a, _) = make(&terms);
        let (b, _) = make(&BookTerms {
            threads: 1,
            ..terms
        });
        assert_eq!(a, b, "the threads change nothing");
        assert_eq!(a.len(), 6);
        let book = Book::parse(&write(&a, "test")).expect("book");
        assert_eq!(book.len(), 6);
        assert!(a.iter().all(|k| k.cp.abs() <= 60));
    }
}
