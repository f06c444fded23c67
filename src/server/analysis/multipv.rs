//! Several best turns of a position (multi-PV) at one depth, for the analysis board's engine
//! lines ([`super::lines`]), and the position a threat is searched in.
//!
//! The engine answers one sub-move at a time and can leave root sub-moves out
//! ([`Engine::search_excluding`]); a turn is S1 and S2 (or S1 alone when it checks or ends the
//! game). So the k-th line is the best turn that reaches none of the positions the k-1 lines
//! before it reach (a turn played in the other order, or any other way to the same position,
//! is the same turn: the puzzles' rule, [`same_turns`]): one search of the root with every
//! excluded S1 left out, and for each S1 of which only some S2s are excluded, one search after
//! it with those S2s left out; the best of these. Runs on an engine thread, synchronously.

use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use crate::engine::{Engine, Limits, Score};
use crate::rules::{Game, Phase, Position, SubMove};
use crate::server::puzzles::analyst::{Turn, same_turns, score_order};

/// One line: a turn, its score for the side that plays it (counted from the turn's start) and
/// the principal variation from the position, the turn's sub-moves first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TurnLine {
    pub turn: Turn,
    pub score: Score,
    pub pv: Vec<SubMove>,
}

/// The lines of one depth, and what they cost.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Depth {
    pub lines: Vec<TurnLine>,
    pub nodes: u64,
    /// Every search reached the depth (or found a mate first): the lines are that depth's.
    pub complete: bool,
}

/// What may still be spent on this depth.
#[derive(Clone, Copy, Debug)]
pub struct Allowance {
    pub depth: u32,
    pub time: Duration,
    pub nodes: u64,
}

/// The search of one depth, with the allowance left as it goes.
struct DepthSearch<'a> {
    engine: &'a mut Engine,
    stop: &'a AtomicBool,
    allowance: Allowance,
    started: Instant,
    nodes: u64,
    complete: bool,
}

impl DepthSearch<'_> {
    /// The best sub-move of `game` at `depth` (at least 1) with `excluded` left out, its score
    /// for the side to move and its principal variation.
    fn search(
        &mut self,
        game: &Game,
        depth: u32,
        excluded: &[SubMove],
    ) -> Option<(Score, Vec<SubMove>)> {
        let time = self.allowance.time.saturating_sub(self.started.elapsed());
        let nodes = self.allowance.nodes.saturating_sub(self.nodes);
        if time.is_zero() || nodes == 0 {
            self.complete = false;
            return None;
        }
        let limits = Limits {
            depth: Some(depth.max(1)),
            nodes: Some(nodes),
            movetime: Some(time),
            ..Limits::default()
        };
        let result = self
            .engine
            .search_excluding(game, &limits, excluded, self.stop, |_| {});
        let info = result.info?;
        self.nodes += info.nodes;
        let mate = matches!(info.score, Score::Mate(_));
        if info.depth < depth.max(1) && !mate {
            self.complete = false;
        }
        let mut pv = info.pv;
        match (result.best, pv.first()) {
            (Some(best), Some(&first)) if best == first => {}
            (Some(best), _) => pv = vec![best],
            (None, _) => return None,
        }
        Some((info.score, pv))
    }

    /// The best turn starting with `s1`, its S2 not one of `excluded`.
    fn turn_from(&mut self, game: &Game, s1: SubMove, excluded: &[SubMove]) -> Option<TurnLine> {
        let mover = game.position().side_to_move();
        let mut after = game.clone();
        after.play(s1).ok()?;
        if after.outcome().is_some() || after.position().side_to_move() != mover {
            return None;
        }
        let depth = self.allowance.depth.saturating_sub(1).max(1);
        let (score, pv) = self.search(&after, depth, excluded)?;
        let mut line = vec![s1];
        line.extend(pv);
        Some(TurnLine {
            turn: vec![s1, line[1]],
            score: one_submove_earlier(score),
            pv: line,
        })
    }

    /// The best turn that is none of `excluded`.
    fn best_turn(&mut self, game: &Game, excluded: &[Turn]) -> Option<TurnLine> {
        let mut whole: Vec<SubMove> = Vec::new();
        let mut partial: Vec<(SubMove, Vec<SubMove>)> = Vec::new();
        for turn in excluded {
            match turn.as_slice() {
                [s1] => whole.push(*s1),
                [s1, s2] => match partial.iter_mut().find(|(first, _)| first == s1) {
                    Some((_, seconds)) => seconds.push(*s2),
                    None => partial.push((*s1, vec![*s2])),
                },
                _ => {}
            }
        }
        let mut root_excluded = whole.clone();
        root_excluded.extend(partial.iter().map(|(s1, _)| *s1));
        let mut candidates = Vec::new();
        if let Some((score, pv)) = self.search(game, self.allowance.depth, &root_excluded) {
            candidates.push(self.complete_turn(game, score, pv));
        }
        for (s1, seconds) in &partial {
            if whole.contains(s1) {
                continue;
            }
            if let Some(line) = self.turn_from(game, *s1, seconds) {
                candidates.push(line);
            }
        }
        // The first of the best: the unrestricted search's turn wins a tie.
        let mut best: Option<TurnLine> = None;
        for candidate in candidates {
            if best
                .as_ref()
                .is_none_or(|b| score_order(candidate.score) > score_order(b.score))
            {
                best = Some(candidate);
            }
        }
        best
    }

    /// The turn a root search's principal variation starts with: its S1, and its S2 when the
    /// S1 keeps the turn (searched after the S1 when the variation stops short of it).
    fn complete_turn(&mut self, game: &Game, score: Score, pv: Vec<SubMove>) -> TurnLine {
        let root = game.position();
        let s1 = pv[0];
        let after = root.play_unchecked(s1);
        let keeps_turn = after.side_to_move() == root.side_to_move()
            && after.phase() == Phase::Second
            && after.board_outcome().is_none();
        if !keeps_turn {
            return TurnLine {
                turn: vec![s1],
                score,
                pv,
            };
        }
        if let Some(&s2) = pv.get(1).filter(|&&s2| after.is_legal(s2)) {
            return TurnLine {
                turn: vec![s1, s2],
                score,
                pv,
            };
        }
        match self.turn_from(game, s1, &[]) {
            Some(line) => TurnLine { score, ..line },
            None => TurnLine {
                turn: vec![s1],
                score,
                pv,
            },
        }
    }
}

/// The same score one sub-move earlier, by the same side: a mate is one sub-move further.
fn one_submove_earlier(score: Score) -> Score {
    match score {
        Score::Mate(n) if n > 0 => Score::Mate(n + 1),
        Score::Mate(n) => Score::Mate(n - 1),
        cp => cp,
    }
}

/// Up to `count` lines of `game`'s position at one depth, best first, no two reaching the same
/// position at the end of their turn. Fewer when the position has fewer turns, or when the
/// allowance ran out (then `complete` is false).
pub fn lines_at_depth(
    engine: &mut Engine,
    game: &Game,
    count: usize,
    allowance: Allowance,
    stop: &AtomicBool,
) -> Depth {
    let mut search = DepthSearch {
        engine,
        stop,
        allowance,
        started: Instant::now(),
        nodes: 0,
        complete: true,
    };
    let mut lines: Vec<TurnLine> = Vec::new();
    let mut excluded: Vec<Turn> = Vec::new();
    while lines.len() < count {
        let Some(line) = search.best_turn(game, &excluded) else {
            break;
        };
        excluded.extend(same_turns(game.position(), &line.turn));
        lines.push(line);
        if !search.complete {
            break;
        }
    }
    // Each line comes from searches of its own, whose scores may disagree a little with the
    // earlier lines' (a search is not exact): the lines are shown best first all the same.
    lines.sort_by_key(|line| std::cmp::Reverse(score_order(line.score)));
    Depth {
        lines,
        nodes: search.nodes,
        complete: search.complete,
    }
}

/// Why no threat can be searched here.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NoThreat {
    #[error("a threat is the opponent's turn in place of yours: only at the start of a turn")]
    MidTurn,
    #[error("the side to move is in check: it cannot pass")]
    InCheck,
    #[error("the game is over in this position")]
    GameOver,
}

/// The position with the side to move passed: the opponent to move, at the first sub-move of
/// a turn (no en-passant target: passing plays no pawn). What a threat is searched in.
pub fn passed(position: &Position) -> Result<Position, NoThreat> {
    if position.board_outcome().is_some() {
        return Err(NoThreat::GameOver);
    }
    if !position.is_turn_start() {
        return Err(NoThreat::MidTurn);
    }
    if position.is_check() {
        return Err(NoThreat::InCheck);
    }
    let fen = position.fen();
    let fields: Vec<&str> = fen.split_whitespace().collect();
    let [placement, side, castling, _, halfmove, fullmove, ..] = fields.as_slice() else {
        return Err(NoThreat::GameOver);
    };
    let fullmove: u32 = fullmove.parse().unwrap_or(1);
    let (side, fullmove) = if *side == "w" {
        ("b", fullmove)
    } else {
        ("w", fullmove + 1)
    };
    let text = format!("{placement} {side} {castling} - {halfmove} {fullmove} 1");
    Position::from_fen(&text, crate::rules::Rules::Marseillais).map_err(|_| NoThreat::InCheck)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Color, Rules};
    use crate::server::puzzles::analyst::same_turn;

    fn game(fen: &str) -> Game {
        Game::new(Position::from_fen(fen, Rules::Marseillais).unwrap())
    }

    fn allowance(depth: u32) -> Allowance {
        Allowance {
            depth,
            time: Duration::from_secs(60),
            nodes: 2_000_000,
        }
    }

    #[test]
    fn the_lines_are_distinct_turns_best_first() {
        let g = game("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3");
        let mut engine = Engine::with_hash_mb(8);
        let depth = lines_at_depth(&mut engine, &g, 4, allowance(3), &AtomicBool::new(false));
        assert!(depth.complete);
        assert_eq!(depth.lines.len(), 4);
        for (i, a) in depth.lines.iter().enumerate() {
            assert_eq!(a.turn.len(), 2, "{a:?}");
            assert_eq!(&a.pv[..2], a.turn.as_slice());
            for b in &depth.lines[i + 1..] {
                assert!(!same_turn(g.position(), &a.turn, &b.turn), "{a:?} {b:?}");
                assert!(score_order(a.score) >= score_order(b.score), "{a:?} {b:?}");
            }
        }
    }

    #[test]
    fn a_mate_in_one_sub_move_is_the_first_line_alone() {
        // Back rank: Ra8# and Re8# both mate on S1.
        let g = game("6k1/5ppp/8/8/8/8/8/R3R1K1 w - - 0 5");
        let mut engine = Engine::with_hash_mb(8);
        let depth = lines_at_depth(&mut engine, &g, 3, allowance(3), &AtomicBool::new(false));
        assert_eq!(depth.lines[0].score, Score::Mate(1));
        assert_eq!(depth.lines[0].turn.len(), 1);
        assert_eq!(depth.lines[1].score, Score::Mate(1), "the other rook");
    }

    #[test]
    fn fewer_turns_than_asked_give_fewer_lines() {
        // The first turn of the game is one sub-move: 20 turns, 20 distinct positions.
        let g = Game::new(Position::initial());
        let mut engine = Engine::with_hash_mb(8);
        let depth = lines_at_depth(&mut engine, &g, 5, allowance(2), &AtomicBool::new(false));
        assert_eq!(depth.lines.len(), 5);
        let king = game("k7/8/1K6/8/8/8/8/8 b - - 0 5");
        let depth = lines_at_depth(&mut engine, &king, 5, allowance(2), &AtomicBool::new(false));
        assert_eq!(
            depth.lines.len(),
            0,
            "insufficient material: the game is over"
        );
    }

    #[test]
    fn the_threat_position_is_the_opponent_to_move_at_a_turn_start() {
        let start = Position::from_fen(
            "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
            Rules::Marseillais,
        )
        .unwrap();
        let threat = passed(&start).unwrap();
        assert_eq!(threat.side_to_move(), Color::Black);
        assert_eq!(threat.phase(), Phase::First);
        assert_eq!(threat.board(), start.board());
        let back = passed(&threat).unwrap();
        assert_eq!(back.side_to_move(), Color::White);
        assert_eq!(back.fullmove_number(), 4);
    }

    #[test]
    fn no_threat_mid_turn_in_check_or_at_the_end() {
        let mid = Position::from_fen(
            "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1 2",
            Rules::Marseillais,
        )
        .unwrap();
        assert_eq!(passed(&mid), Err(NoThreat::MidTurn));
        let check =
            Position::from_fen("4k3/8/8/8/8/8/8/4K2r w - - 0 5", Rules::Marseillais).unwrap();
        assert_eq!(passed(&check), Err(NoThreat::InCheck));
        let mate = Position::from_fen(
            "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3",
            Rules::Marseillais,
        )
        .unwrap();
        assert_eq!(passed(&mate), Err(NoThreat::GameOver));
    }
}
