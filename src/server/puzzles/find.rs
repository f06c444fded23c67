//! Finding puzzles in a game: lichess-puzzler's method (`generator/generator.py`) adapted to
//! turns of two sub-moves. Pure on a game and an [`Analyst`]; every search is bounded by
//! nodes, so the same game gives the same puzzles.
//!
//! 1. **Scan.** Every turn start of the game is searched once ([`Criteria::scan_nodes`]): the
//!    score of the side to move, as lichess reads the evaluations stored with its games.
//! 2. **Chance.** At each turn start, the solver (the side to move) against the score before
//!    the opponent's last turn: not already won before it (more than +300 cp, or a mate),
//!    not up in material now (a recapture is no puzzle), and either a mate in a few sub-moves
//!    now, or at least +200 cp with a jump of 0.6 in winning chances
//!    ([`super::win_chance`]; below +400 cp only when the solver is down in material, as
//!    lichess). That is a **mate** or an **advantage** candidate. A **defence** candidate:
//!    the solver is not lost (winning chances at least -0.25), not down in material, and the
//!    turn it actually played threw the game away (its chances fell by 0.6): maybe one turn
//!    held, and the player missed it.
//! 3. **Line.** From there, the solver's turn must be the only good one ([`only_turn`]: the
//!    best turn beats the second by 0.7 in winning chances, a defence's best holds at -0.25 or
//!    better; at a mate in one turn any mating turn is right, as the judge accepts it, and
//!    every other turn must win less than 0.6). The opponent answers with the engine's best
//!    turn. An advantage or a defence line goes on while the solver's next turn is again the
//!    only good one, and ends with a solver's turn that had an alternative; a mate line goes
//!    to the mate and every solver turn on it must be the only one. At most 4 solver turns.
//!    An advantage line is given up when the solver's best or the opponent's reply leaves less
//!    than +200 cp, a defence line when the reply leaves the solver lost, any line that
//!    repeats a position.
//!
//! A position is tried once: `seen` holds the positions already tried (this game's and the
//! others'), so a duplicate costs nothing. Every line found is checked again deeper by
//! [`super::verify`] before it is kept.

use std::collections::HashSet;

use super::analyst::{
    Analyst, Turn, TurnPair, all_turns, is_mated, pair, play_turn, score_order, turn_mates,
};
use super::line::PuzzleLine;
use super::themes::PuzzleKind;
use super::win_chance::win_chance;
use crate::engine::Score;
use crate::rules::{Color, Game, Piece, Position};

/// The most solver turns of a puzzle (the issue: 1 to 4).
pub const MAX_SOLVER_TURNS: usize = 4;

/// The finder's numbers. [`Criteria::default`] has the documented ones (docs/puzzles.md).
#[derive(Clone, Debug, PartialEq)]
pub struct Criteria {
    /// Nodes of the one search of every turn start of the game.
    pub scan_nodes: u64,
    /// Nodes of each search that builds a line (best and second turns, replies).
    pub pair_nodes: u64,
    /// The jump in winning chances the opponent's turn must give (lichess: 0.6).
    pub min_jump: f64,
    /// How much the best turn must beat the second by, in winning chances (lichess: 0.7).
    pub only_margin: f64,
    /// At a mate in one turn, the most a non-mating turn may win (lichess: 0.6).
    pub mate_alternative_max: f64,
    /// The least an advantage line must keep, in centipawns (lichess: 200).
    pub advantage_min_cp: i32,
    /// Below this an advantage must come from being down in material (lichess: 400).
    pub clear_cp: i32,
    /// Already won before the opponent's turn, in centipawns (lichess: 300).
    pub already_won_cp: i32,
    /// A mate counts when it is at most this many sub-moves away (both sides'): 4 solver
    /// turns and 3 replies of two sub-moves, 14, plus one for a checking S1 on the way.
    pub mate_soon: i32,
    /// The least winning chances a defence must keep.
    pub defence_floor: f64,
}

impl Default for Criteria {
    fn default() -> Self {
        Criteria {
            scan_nodes: 25_000,
            pair_nodes: 50_000,
            min_jump: 0.6,
            only_margin: 0.7,
            mate_alternative_max: 0.6,
            advantage_min_cp: 200,
            clear_cp: 400,
            already_won_cp: 300,
            mate_soon: 15,
            defence_floor: -0.25,
        }
    }
}

/// A puzzle found in a game, not yet verified.
#[derive(Clone, Debug, PartialEq)]
pub struct Found {
    pub line: PuzzleLine,
    pub kind: PuzzleKind,
    /// How much the solver's winning chances (lichess's curve, -1 to 1, so 0 to 2) rise: for a
    /// mate or an advantage, from before the opponent's turn to the solver's best turn; for a
    /// defence, from the second-best turn to the best. What [`super::themes::tag`] reads.
    pub win_chance_gain: f64,
    /// The game's turn start the puzzle's FEN is (0: the game's first).
    pub turn_start: usize,
}

/// What one game gave.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GameFinding {
    pub found: Vec<Found>,
    /// Turn starts searched by the scan.
    pub positions: usize,
    /// Positions tried as a puzzle (candidates not seen before), by the kind looked for.
    pub candidates: Vec<PuzzleKind>,
    /// Why the candidates that gave no line gave none.
    pub misses: Vec<(PuzzleKind, Miss)>,
}

/// A turn start of the game: the game up to it, and the turn that led to it.
struct Stop {
    game: Game,
    turn_in: Turn,
}

/// Finds the puzzles of a game. `seen` is shared between games: a position in it is not
/// tried again, and every position tried is added.
pub fn find(
    analyst: &mut impl Analyst,
    game: &Game,
    criteria: &Criteria,
    seen: &mut HashSet<String>,
) -> GameFinding {
    analyst.reset();
    let stops = turn_starts(game);
    let scores: Vec<Option<Score>> = stops
        .iter()
        .map(|stop| {
            if stop.game.outcome().is_some() || !stop.game.position().is_turn_start() {
                None
            } else {
                analyst.eval(&stop.game, criteria.scan_nodes)
            }
        })
        .collect();
    let mut finding = GameFinding {
        positions: scores.iter().flatten().count(),
        ..GameFinding::default()
    };
    let mut index = 1;
    while index < stops.len() {
        let here = &stops[index];
        let before = &stops[index - 1];
        let (Some(prev), Some(now)) = (scores[index - 1].map(negate), scores[index]) else {
            index += 1;
            continue;
        };
        if !before.game.position().is_turn_start() || here.game.repetition_count() > 1 {
            index += 1;
            continue;
        }
        let after_played = stops.get(index + 1).and_then(|next| {
            if is_mated(&next.game) {
                Some(-1.0)
            } else {
                scores[index + 1].map(|s| win_chance(negate(s)))
            }
        });
        let kind = chance(prev, now, here.game.position(), after_played, criteria);
        let Some(kind) = kind else {
            index += 1;
            continue;
        };
        if !seen.insert(position_key(here.game.position())) {
            index += 1;
            continue;
        }
        finding.candidates.push(kind);
        let cooked = match cook(analyst, &here.game, kind, criteria) {
            Ok(cooked) => cooked,
            Err(miss) => {
                finding.misses.push((kind, miss));
                index += 1;
                continue;
            }
        };
        let mut turns = vec![here.turn_in.clone()];
        turns.extend(cooked.turns);
        let Ok(line) = PuzzleLine::new(*before.game.position(), turns) else {
            index += 1;
            continue;
        };
        let gain = match kind {
            PuzzleKind::Defence => cooked.margin,
            PuzzleKind::Mate | PuzzleKind::Advantage => {
                win_chance(cooked.first_best) - win_chance(prev)
            }
        };
        let solver_turns = line.solver_turns();
        finding.found.push(Found {
            line,
            kind,
            win_chance_gain: gain.clamp(0.0, 2.0),
            turn_start: index - 1,
        });
        // The next chance is looked for after the line.
        index += 2 * solver_turns;
    }
    finding
}

/// The kind of puzzle the position may hold, from the scores around the opponent's turn
/// (`prev`, `now`: the solver's, before and after it) and the winning chances after the turn
/// the solver actually played (`after_played`; `None` when the game ended otherwise).
fn chance(
    prev: Score,
    now: Score,
    position: &Position,
    after_played: Option<f64>,
    criteria: &Criteria,
) -> Option<PuzzleKind> {
    let solver = position.side_to_move();
    if score_order(prev) > i64::from(criteria.already_won_cp) {
        return None;
    }
    let material = material_diff(position, solver);
    if material > 0 {
        return None;
    }
    if is_mate_soon(now, criteria) {
        return Some(PuzzleKind::Mate);
    }
    if let Score::Cp(cp) = now
        && cp >= criteria.advantage_min_cp
        && win_chance(now) > win_chance(prev) + criteria.min_jump
    {
        return (cp >= criteria.clear_cp || material < 0).then_some(PuzzleKind::Advantage);
    }
    let held = win_chance(now);
    match after_played {
        Some(after)
            if held >= criteria.defence_floor
                && after < held - criteria.min_jump
                && material == 0 =>
        {
            Some(PuzzleKind::Defence)
        }
        _ => None,
    }
}

/// A line from the solver's first position: the turns after the opponent's first.
struct Cooked {
    turns: Vec<Turn>,
    /// The score of the solver's first best turn.
    first_best: Score,
    /// The winning chances between the first best turn and the second.
    margin: f64,
}

/// Why a candidate gave no line (the figures count them, per kind).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Miss {
    /// The solver's first turn is the only legal one.
    Forced,
    /// The solver's first turn is not the only good one (at a mate: some solver turn).
    NotOnly,
    /// The solver's best turn does not keep what the kind promises.
    NotWinning,
    /// The opponent's best reply leaves the solver less than the kind promises.
    ReplyHolds,
    /// The line repeats a position.
    Repetition,
    /// A mate takes more than 4 solver turns, or does not come.
    NoMate,
}

impl Miss {
    pub fn key(self) -> &'static str {
        match self {
            Miss::Forced => "forced",
            Miss::NotOnly => "not-only",
            Miss::NotWinning => "not-winning",
            Miss::ReplyHolds => "reply-holds",
            Miss::Repetition => "repetition",
            Miss::NoMate => "no-mate",
        }
    }
}

/// Builds the line from the solver's first position (lichess's `cook_mate` and
/// `cook_advantage`, and the same for a defence).
fn cook(
    analyst: &mut impl Analyst,
    start: &Game,
    kind: PuzzleKind,
    criteria: &Criteria,
) -> Result<Cooked, Miss> {
    let solver = start.position().side_to_move();
    let mut node = start.clone();
    let mut turns: Vec<Turn> = Vec::new();
    // Per solver turn: whether it had an alternative.
    let mut contested: Vec<bool> = Vec::new();
    let mut first: Option<TurnPair> = None;
    while node.outcome().is_none() {
        if node.position().side_to_move() == solver {
            if contested.len() == MAX_SOLVER_TURNS {
                if kind == PuzzleKind::Mate {
                    return Err(Miss::NoMate);
                }
                break;
            }
            let Some(pair) = pair(analyst, &node, criteria.pair_nodes) else {
                break;
            };
            if first.is_none() && pair.second.is_none() {
                return Err(Miss::Forced);
            }
            let only = only_turn(analyst, &node, &pair, kind, criteria, criteria.pair_nodes);
            match kind {
                PuzzleKind::Mate if !is_mate_soon(pair.best.score, criteria) => {
                    return Err(Miss::NoMate);
                }
                PuzzleKind::Mate if !only => return Err(Miss::NotOnly),
                PuzzleKind::Advantage | PuzzleKind::Defence if !only => break,
                PuzzleKind::Advantage
                    if score_order(pair.best.score) < i64::from(criteria.advantage_min_cp) =>
                {
                    return Err(Miss::NotWinning);
                }
                _ => {}
            }
            play_turn(&mut node, &pair.best.turn).map_err(|_| Miss::NotWinning)?;
            turns.push(pair.best.turn.clone());
            contested.push(pair.second.is_some());
            if first.is_none() {
                first = Some(pair);
            }
        } else {
            let reply = analyst
                .best_turn(&node, &[], criteria.pair_nodes)
                .ok_or(Miss::ReplyHolds)?;
            let kept = negate(reply.score);
            let holds = match kind {
                PuzzleKind::Mate => true,
                PuzzleKind::Advantage => score_order(kept) >= i64::from(criteria.advantage_min_cp),
                PuzzleKind::Defence => win_chance(kept) >= criteria.defence_floor,
            };
            if !holds {
                return Err(Miss::ReplyHolds);
            }
            play_turn(&mut node, &reply.turn).map_err(|_| Miss::ReplyHolds)?;
            turns.push(reply.turn);
        }
        if node.position().is_turn_start() && node.repetition_count() > 1 {
            return Err(Miss::Repetition);
        }
    }
    if kind == PuzzleKind::Mate {
        if !is_mated(&node) || node.position().side_to_move() == solver {
            return Err(Miss::NoMate);
        }
    } else {
        // End with a solver's turn that had an alternative (lichess drops a final only-move).
        while !turns.is_empty() && (turns.len().is_multiple_of(2) || contested.last() == Some(&false)) {
            if turns.len() % 2 == 1 {
                contested.pop();
            }
            turns.pop();
        }
    }
    let first = first.ok_or(Miss::NotOnly)?;
    if turns.is_empty() {
        return Err(Miss::NotOnly);
    }
    let margin = first.second.as_ref().map_or(1.0, |second| {
        win_chance(first.best.score) - win_chance(second.score)
    });
    Ok(Cooked {
        turns,
        first_best: first.best.score,
        margin,
    })
}

/// Whether the pair's best turn is the only good one for a puzzle of `kind` (lichess's
/// `is_valid_attack`, with a defence's floor). At a mate in one turn every mating turn is
/// right (the judge accepts any), so the turns compared with it are the non-mating ones.
pub fn only_turn(
    analyst: &mut impl Analyst,
    game: &Game,
    pair: &TurnPair,
    kind: PuzzleKind,
    criteria: &Criteria,
    nodes: u64,
) -> bool {
    let best = win_chance(pair.best.score);
    if kind == PuzzleKind::Defence && best < criteria.defence_floor {
        return false;
    }
    if kind == PuzzleKind::Mate && turn_mates(game, &pair.best.turn) {
        return mate_in_one_only(analyst, game, pair, criteria, nodes);
    }
    match &pair.second {
        None => true,
        Some(second) => best > win_chance(second.score) + criteria.only_margin,
    }
}

/// A mate in one turn: every turn whose S1 still leads to a mate is right (the judge accepts
/// any mating turn); no other turn may win more than [`Criteria::mate_alternative_max`]
/// (lichess's `is_valid_mate_in_one`). With two sub-moves a mate on S1 is often also a mate
/// on S2 after any quiet S1, so the turns compared are those of the S1s that lose the mate.
fn mate_in_one_only(
    analyst: &mut impl Analyst,
    game: &Game,
    pair: &TurnPair,
    criteria: &Criteria,
    nodes: u64,
) -> bool {
    if pair.second.is_none() {
        return true;
    }
    let mut firsts: Vec<Turn> = all_turns(game.position())
        .into_iter()
        .filter(|turn| turn_mates(game, turn))
        .map(|turn| vec![turn[0]])
        .collect();
    firsts.dedup();
    match analyst.best_turn(game, &firsts, nodes) {
        None => true,
        Some(other) => win_chance(other.score) <= criteria.mate_alternative_max,
    }
}

/// A mate for the side counted, at most [`Criteria::mate_soon`] sub-moves away.
fn is_mate_soon(score: Score, criteria: &Criteria) -> bool {
    matches!(score, Score::Mate(n) if n > 0 && n <= criteria.mate_soon)
}

/// The score for the other side.
pub fn negate(score: Score) -> Score {
    match score {
        Score::Cp(cp) => Score::Cp(-cp),
        Score::Mate(n) => Score::Mate(-n),
    }
}

/// The key under which a position counts as seen: the FEN without its move counters.
pub fn position_key(position: &Position) -> String {
    position
        .fen()
        .split(' ')
        .take(4)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Material in pawns (1, 3, 3, 5, 9), `side`'s less the other's (lichess's `material_diff`).
pub fn material_diff(position: &Position, side: Color) -> i32 {
    let board = position.board();
    let count = |color: Color| -> i32 {
        [
            (Piece::Pawn, 1),
            (Piece::Knight, 3),
            (Piece::Bishop, 3),
            (Piece::Rook, 5),
            (Piece::Queen, 9),
        ]
        .into_iter()
        .map(|(piece, value)| board.colored_pieces(color, piece).len() as i32 * value)
        .sum()
    };
    count(side) - count(!side)
}

/// The game's turn starts, each with the game up to it and the turn that led to it; a game
/// that ended in the middle of a turn (the second-move stalemate) ends with that position.
fn turn_starts(game: &Game) -> Vec<Stop> {
    let mut replay = Game::new(*game.start());
    let mut stops = Vec::new();
    if replay.position().is_turn_start() {
        stops.push(Stop {
            game: replay.clone(),
            turn_in: Vec::new(),
        });
    }
    let mut turn = Vec::new();
    for mv in game.submoves() {
        if replay.play(mv).is_err() {
            break;
        }
        turn.push(mv);
        if replay.position().is_turn_start() || replay.outcome().is_some() {
            stops.push(Stop {
                game: replay.clone(),
                turn_in: std::mem::take(&mut turn),
            });
        }
    }
    stops
}

#[cfg(test)]
mod tests;
