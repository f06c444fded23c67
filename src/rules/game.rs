//! A game record: the start position, the sub-moves played, and the endings
//! that need the history (repetition, claims) or come from off the board
//! (resignation, agreement, time, abandonment, abort).

use arrayvec::ArrayVec;
use cozy_chess::Color;

use super::outcome::{Outcome, Termination};
use super::position::{Phase, PlayError, Position};
use super::submove::SubMove;

/// A draw the side to move may claim at the start of its turn (rules 3).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Claim {
    /// The position occurs for the third time at the start of a turn.
    ThreefoldRepetition,
    /// 100 sub-moves without a capture or a pawn move.
    FiftyMoveRule,
}

impl Claim {
    pub fn termination(self) -> Termination {
        match self {
            Claim::ThreefoldRepetition => Termination::ThreefoldRepetition,
            Claim::FiftyMoveRule => Termination::FiftyMoveRule,
        }
    }
}

/// Why the game refused an action. The game is unchanged.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GameError {
    #[error("the game is over: {0}")]
    GameOver(Outcome),
    #[error(transparent)]
    Play(#[from] PlayError),
    #[error("there is no first sub-move of the current turn to take back")]
    NothingToTakeBack,
    #[error("a {0:?} claim is not available now")]
    ClaimUnavailable(Claim),
    #[error("{0} is decided by the board, not declared")]
    NotDeclarable(Termination),
}

/// One side's turn as written in comma PGN: one or two sub-moves, or only
/// the S2 when a record starts at phase 2.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Turn {
    pub side: Color,
    /// The fullmove number of the turn.
    pub number: u32,
    /// Index in [`Game::submoves`] of the turn's first sub-move.
    pub first_index: usize,
    pub submoves: ArrayVec<SubMove, 2>,
    /// The record starts in the middle of this turn (FEN phase 2).
    pub starts_at_second: bool,
}

/// A game from any legal start position.
#[derive(Clone, Debug)]
pub struct Game {
    /// `positions[0]` is the start; `positions[i + 1]` follows `submoves[i]`.
    positions: Vec<Position>,
    submoves: Vec<SubMove>,
    /// Repetition keys of turn-start positions (`None` in the middle of a turn).
    keys: Vec<Option<u64>>,
    /// An ending declared from off the board or by a claim.
    declared: Option<Outcome>,
}

impl Game {
    pub fn new(start: Position) -> Game {
        Game {
            keys: vec![turn_key(&start)],
            positions: vec![start],
            submoves: Vec::new(),
            declared: None,
        }
    }

    pub fn start(&self) -> &Position {
        &self.positions[0]
    }

    /// The current position.
    pub fn position(&self) -> &Position {
        self.positions.last().unwrap_or(&self.positions[0])
    }

    pub fn submoves(&self) -> &[SubMove] {
        &self.submoves
    }

    /// Every position from the start, one more than there are sub-moves.
    pub fn positions(&self) -> &[Position] {
        &self.positions
    }

    /// The ending declared off the board or by a claim, if any.
    pub fn declared_outcome(&self) -> Option<Outcome> {
        self.declared
    }

    /// How the game ended, if it did: a declared ending, then the board
    /// (checkmate, stalemates, insufficient material, 75-move rule), then
    /// fivefold repetition.
    pub fn outcome(&self) -> Option<Outcome> {
        self.declared.or_else(|| self.automatic_outcome())
    }

    /// The ending the rules impose by themselves on the current position.
    pub fn automatic_outcome(&self) -> Option<Outcome> {
        self.position()
            .board_outcome()
            .or_else(|| self.fivefold_outcome())
    }

    /// The fivefold-repetition draw, if the current position has reached it.
    fn fivefold_outcome(&self) -> Option<Outcome> {
        (self.repetition_count() >= 5).then_some(Outcome::Draw {
            reason: Termination::FivefoldRepetition,
        })
    }

    /// How many times the current position has stood at the start of a
    /// turn (0 in the middle of a turn, where repetitions do not count).
    pub fn repetition_count(&self) -> usize {
        match self.keys.last().copied().flatten() {
            None => 0,
            Some(key) => self.keys.iter().filter(|&&k| k == Some(key)).count(),
        }
    }

    /// Plays one sub-move; on error nothing changes.
    pub fn play(&mut self, mv: SubMove) -> Result<&Position, GameError> {
        if let Some(outcome) = self.declared {
            return Err(GameError::GameOver(outcome));
        }
        // `Position::play` judges the board ending itself (one generation);
        // the precedence of `outcome` is kept: declared, board, fivefold,
        // and only then the sub-move's own errors.
        let played = match self.position().play(mv) {
            Err(PlayError::GameOver(outcome)) => return Err(GameError::GameOver(outcome)),
            other => other,
        };
        if let Some(outcome) = self.fivefold_outcome() {
            return Err(GameError::GameOver(outcome));
        }
        let next = played?;
        self.keys.push(turn_key(&next));
        self.positions.push(next);
        self.submoves.push(mv);
        Ok(self.position())
    }

    /// Withdraws the mover's own S1 before it plays S2 (not part of the
    /// record). Only possible while the turn is at S2 and the game goes on:
    /// an S1 that leaves no legal S2 has already ended the game (stalemate
    /// after the first sub-move), so it cannot be withdrawn.
    pub fn takeback_first_submove(&mut self) -> Result<SubMove, GameError> {
        if let Some(outcome) = self.outcome() {
            return Err(GameError::GameOver(outcome));
        }
        if self.position().phase() != Phase::Second || self.submoves.is_empty() {
            return Err(GameError::NothingToTakeBack);
        }
        self.positions.pop();
        self.keys.pop();
        self.submoves.pop().ok_or(GameError::NothingToTakeBack)
    }

    /// The draws the side to move may claim now.
    pub fn available_claims(&self) -> Vec<Claim> {
        let mut claims = Vec::new();
        if self.outcome().is_some() || !self.position().is_turn_start() {
            return claims;
        }
        if self.repetition_count() >= 3 {
            claims.push(Claim::ThreefoldRepetition);
        }
        if self.position().halfmove_clock() >= 100 {
            claims.push(Claim::FiftyMoveRule);
        }
        claims
    }

    /// Ends the game by a draw claim if it is available.
    pub fn claim(&mut self, claim: Claim) -> Result<Outcome, GameError> {
        if let Some(outcome) = self.outcome() {
            return Err(GameError::GameOver(outcome));
        }
        if !self.available_claims().contains(&claim) {
            return Err(GameError::ClaimUnavailable(claim));
        }
        let outcome = Outcome::Draw {
            reason: claim.termination(),
        };
        self.declared = Some(outcome);
        Ok(outcome)
    }

    /// Ends the game from off the board: resignation, agreement, time
    /// forfeit, abandonment, abort or unterminated. Board endings and claims
    /// cannot be declared; they come from the position.
    pub fn declare(&mut self, outcome: Outcome) -> Result<(), GameError> {
        if let Some(existing) = self.outcome() {
            return Err(GameError::GameOver(existing));
        }
        let reason = outcome.reason();
        if reason.is_on_board()
            || matches!(
                reason,
                Termination::ThreefoldRepetition | Termination::FiftyMoveRule
            )
        {
            return Err(GameError::NotDeclarable(reason));
        }
        self.declared = Some(outcome);
        Ok(())
    }

    /// The sub-moves grouped into turns, as comma PGN writes them.
    pub fn turns(&self) -> Vec<Turn> {
        let mut turns: Vec<Turn> = Vec::new();
        for (index, &mv) in self.submoves.iter().enumerate() {
            let before = &self.positions[index];
            let new_turn = index == 0 || before.is_turn_start();
            if new_turn {
                turns.push(Turn {
                    side: before.side_to_move(),
                    number: before.fullmove_number(),
                    first_index: index,
                    submoves: ArrayVec::new(),
                    starts_at_second: index == 0 && before.phase() == Phase::Second,
                });
            }
            if let Some(turn) = turns.last_mut() {
                turn.submoves.push(mv);
            }
        }
        turns
    }
}

fn turn_key(position: &Position) -> Option<u64> {
    position.is_turn_start().then(|| position.repetition_key())
}
