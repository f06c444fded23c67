//! A game record: the start position, the sub-moves played, and the endings
//! that need the history (repetition, claims) or come from off the board
//! (resignation, agreement, time, abandonment, abort).

use arrayvec::ArrayVec;
use cozy_chess::Color;

use super::outcome::{Outcome, Termination};
use super::position::{Phase, PlayError, Position};
use super::record::Record;
use super::submove::{SubMove, SubMoveList};

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
    #[error("the game changed since this sub-move was previewed, or it is another game's")]
    StalePreview,
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
///
/// It keeps what the rules need and nothing per position played: the start,
/// the sub-moves, the repetition keys that can still repeat, the current
/// position with its legal sub-moves and automatic ending computed once, and
/// the position before an S1 that may still be taken back. Memory grows by
/// about one byte per sub-move ([`Record`]: each sub-move's index in its
/// position's legal list); the repetition keys are bounded by the 75-move
/// rule (see [`Game::play_previewed`]). Everything else about the past is
/// replayed on demand ([`Game::replay`]).
#[derive(Clone, Debug)]
pub struct Game {
    start: Position,
    record: Record,
    /// Keys of the turn-start positions since the last capture or pawn move,
    /// oldest first: earlier ones can never come back.
    keys: Vec<Key>,
    current: Current,
    /// The position the current turn's S1 was played from, while that S1
    /// may still be taken back (the turn stands at S2).
    before_first: Option<Position>,
    /// An ending declared from off the board or by a claim.
    declared: Option<Outcome>,
    /// Counts every change, so that a [`Preview`] made before one is refused.
    revision: u64,
}

/// A repetition key and the index of the position it belongs to (0 is the
/// start, `i + 1` follows the `i`th sub-move).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Key {
    ply: usize,
    key: u64,
}

/// The current position with what is judged on it, computed once when the
/// position is reached (one legal-move generation) and read for free after.
#[derive(Clone, Debug)]
struct Current {
    position: Position,
    /// On the heap: a [`SubMoveList`] holds room for the most sub-moves any position can have
    /// (1.5 KiB), and every live game on the server keeps one Current (a position has ~30).
    legal: Box<[SubMove]>,
    /// The board ending or fivefold repetition, if the position shows one.
    automatic: Option<Outcome>,
    /// How many times the position has stood at a turn start (0 mid-turn).
    repetitions: usize,
}

/// One sub-move tried on a game without changing it: the next position, its
/// legal sub-moves and the ending it reaches (board endings and fivefold
/// repetition). [`Game::play_previewed`] applies it without generating
/// again; a preview made before the game changed is refused there.
#[derive(Clone, Debug)]
pub struct Preview {
    revision: u64,
    /// The position it was made on: with `revision`, what identifies the
    /// game state it belongs to (a preview of another game is refused too).
    from: Position,
    submove: SubMove,
    /// Its index in the legal list of `from`: what the record keeps.
    index: usize,
    /// Whether the sub-move was played at S1 and the turn goes on to S2.
    keeps_turn: bool,
    next: Current,
    /// The next position's repetition key, if it starts a turn.
    key: Option<u64>,
}

impl Preview {
    pub fn submove(&self) -> SubMove {
        self.submove
    }

    /// The position after the sub-move.
    pub fn position(&self) -> &Position {
        &self.next.position
    }

    /// The legal sub-moves of the position after it.
    pub fn legal_submoves(&self) -> &[SubMove] {
        &self.next.legal
    }

    /// The ending the rules impose after the sub-move: checkmate, a
    /// stalemate, insufficient material, the 75-move rule or fivefold
    /// repetition.
    pub fn outcome(&self) -> Option<Outcome> {
        self.next.automatic
    }

    /// Whether the mover's turn ends with this sub-move (a second sub-move,
    /// a single-sub-move turn, a check on S1, or the end of the game).
    pub fn ends_turn(&self) -> bool {
        !self.keeps_turn || self.next.automatic.is_some()
    }
}

impl Current {
    /// Judges `position` with its legal sub-moves, given how often it has
    /// stood at a turn start.
    fn judge(position: Position, legal: SubMoveList, repetitions: usize) -> Current {
        let automatic = position.board_outcome_given(&legal).or_else(|| {
            (repetitions >= 5).then_some(Outcome::Draw {
                reason: Termination::FivefoldRepetition,
            })
        });
        Current {
            position,
            legal: legal.as_slice().into(),
            automatic,
            repetitions,
        }
    }
}

impl Game {
    /// A game at `start` (one legal-move generation).
    pub fn new(start: Position) -> Game {
        let legal = start.legal_submoves();
        let key = turn_key(&start, &legal);
        Game {
            start,
            record: Record::default(),
            keys: key.map(|key| Key { ply: 0, key }).into_iter().collect(),
            current: Current::judge(start, legal, usize::from(key.is_some())),
            before_first: None,
            declared: None,
            revision: 0,
        }
    }

    pub fn start(&self) -> &Position {
        &self.start
    }

    /// The current position.
    pub fn position(&self) -> &Position {
        &self.current.position
    }

    /// The legal sub-moves of the current position (whether or not the game
    /// is over), generated once when the position was reached.
    pub fn legal_submoves(&self) -> &[SubMove] {
        &self.current.legal
    }

    /// How many sub-moves have been played (no replay).
    pub fn submove_count(&self) -> usize {
        self.record.len()
    }

    /// The sub-moves played, replayed from the record ([`Game::replay`]).
    pub fn submoves(&self) -> Vec<SubMove> {
        self.replay().map(|(_, mv)| mv).collect()
    }

    /// Each sub-move played with the position it was played from, first to
    /// last: one legal-move generation per sub-move, to read its index.
    pub fn replay(&self) -> impl Iterator<Item = (Position, SubMove)> + '_ {
        let mut position = self.start;
        self.record.indices().map(move |index| {
            let before = position;
            // The index was taken from this very position's list when the
            // sub-move was played, and the generation is deterministic.
            let mv = before.legal_submoves()[index];
            position.play_in_place(mv);
            (before, mv)
        })
    }

    /// Every position from the start, one more than there are sub-moves
    /// ([`Game::replay`]).
    pub fn positions(&self) -> Vec<Position> {
        self.positions_iter().collect()
    }

    /// [`Game::positions`] without collecting them.
    pub fn positions_iter(&self) -> impl Iterator<Item = Position> + '_ {
        std::iter::once(self.start)
            .chain(self.replay().map(|(before, mv)| before.play_unchecked(mv)))
    }

    /// The heap memory the game holds beyond `size_of::<Game>()`: the
    /// record (about a byte per sub-move), the repetition keys that can
    /// still repeat (at most 151, see [`Game::play_previewed`]) and the
    /// current position's legal sub-moves.
    pub fn heap_bytes(&self) -> usize {
        self.record.heap_bytes()
            + self.keys.capacity() * std::mem::size_of::<Key>()
            + std::mem::size_of_val(&*self.current.legal)
    }

    /// How many repetition keys the game keeps: those of the turn starts
    /// since the last capture or pawn move.
    pub fn kept_repetition_keys(&self) -> usize {
        self.keys.len()
    }

    /// The ending declared off the board or by a claim, if any.
    pub fn declared_outcome(&self) -> Option<Outcome> {
        self.declared
    }

    /// How the game ended, if it did: a declared ending, then the board
    /// (checkmate, stalemates, insufficient material, 75-move rule), then
    /// fivefold repetition. Read from what was judged when the position was
    /// reached: no generation.
    pub fn outcome(&self) -> Option<Outcome> {
        self.declared.or(self.current.automatic)
    }

    /// The ending the rules impose by themselves on the current position.
    pub fn automatic_outcome(&self) -> Option<Outcome> {
        self.current.automatic
    }

    /// How many times the current position has stood at the start of a
    /// turn (0 in the middle of a turn, where repetitions do not count).
    pub fn repetition_count(&self) -> usize {
        self.current.repetitions
    }

    /// Tries `mv` without changing the game: the next position, its legal
    /// sub-moves and the ending it reaches, with one legal-move generation
    /// (the next position's; the current one's is kept). Refused, in this
    /// order, when the game is over (declared, then on the board or by
    /// fivefold repetition) or when `mv` is not a legal sub-move here.
    pub fn preview(&self, mv: SubMove) -> Result<Preview, GameError> {
        if let Some(outcome) = self.outcome() {
            return Err(GameError::GameOver(outcome));
        }
        let here = &self.current.position;
        match here.board().color_on(mv.from) {
            None => return Err(PlayError::NoPiece(mv.from).into()),
            Some(color) if color != here.side_to_move() => {
                return Err(PlayError::NotYourPiece(mv.from).into());
            }
            Some(_) => {}
        }
        let Some(index) = self.current.legal.iter().position(|&legal| legal == mv) else {
            return Err(PlayError::Illegal(mv).into());
        };
        let position = here.play_unchecked(mv);
        let legal = position.legal_submoves();
        let key = turn_key(&position, &legal);
        let repetitions = key.map_or(0, |key| {
            1 + self.keys.iter().filter(|k| k.key == key).count()
        });
        Ok(Preview {
            revision: self.revision,
            from: *here,
            submove: mv,
            index,
            keeps_turn: position.side_to_move() == here.side_to_move(),
            next: Current::judge(position, legal, repetitions),
            key,
        })
    }

    /// Applies a sub-move tried by [`Game::preview`] on this game as it is
    /// now, without generating again. A preview made before the game changed
    /// (another sub-move, a takeback, an ending), or made on another game's
    /// position, is refused with [`GameError::StalePreview`] and nothing
    /// changes.
    pub fn play_previewed(&mut self, preview: Preview) -> Result<&Position, GameError> {
        if preview.revision != self.revision || preview.from != self.current.position {
            return Err(GameError::StalePreview);
        }
        let ply = self.record.len() + 1;
        if let Some(key) = preview.key {
            // A capture or a pawn move can never be undone, so no position
            // before the last one can repeat: the halfmove clock says how
            // far back that was. The 75-move rule ends the game after 150
            // sub-moves without one, and a turn has at least one sub-move,
            // so at most 151 keys are ever kept (76 when no S1 gives check).
            let clock = preview.next.position.halfmove_clock();
            let floor = ply.saturating_sub(usize::try_from(clock).unwrap_or(usize::MAX));
            let stale = self.keys.iter().take_while(|k| k.ply < floor).count();
            self.keys.drain(..stale);
            self.keys.push(Key { ply, key });
        }
        self.before_first = preview.keeps_turn.then_some(self.current.position);
        self.record.push(preview.index);
        self.current = preview.next;
        self.revision += 1;
        Ok(&self.current.position)
    }

    /// Plays one sub-move ([`Game::preview`] then [`Game::play_previewed`]:
    /// one legal-move generation); on error nothing changes.
    pub fn play(&mut self, mv: SubMove) -> Result<&Position, GameError> {
        let preview = self.preview(mv)?;
        self.play_previewed(preview)
    }

    /// The standard SAN of a previewed sub-move, from the lists the game
    /// and the preview already hold (no legal-move generation).
    pub fn san(&self, preview: &Preview) -> String {
        self.current.position.san_with(
            preview.submove,
            &self.current.legal,
            &preview.next.position,
            &preview.next.legal,
        )
    }

    /// Withdraws the mover's own S1 before it plays S2 (not part of the
    /// record). Only possible while the turn is at S2 and the game goes on:
    /// an S1 that leaves no legal S2 has already ended the game (stalemate
    /// after the first sub-move), so it cannot be withdrawn. One legal-move
    /// generation, for the position it returns to.
    pub fn takeback_first_submove(&mut self) -> Result<SubMove, GameError> {
        if let Some(outcome) = self.outcome() {
            return Err(GameError::GameOver(outcome));
        }
        if self.position().phase() != Phase::Second {
            return Err(GameError::NothingToTakeBack);
        }
        let Some(before) = self.before_first else {
            return Err(GameError::NothingToTakeBack);
        };
        let index = self.record.pop().ok_or(GameError::NothingToTakeBack)?;
        // The S1 led to a mid-turn position, which added no key: the last
        // key, if it is this position's, is still there.
        let legal = before.legal_submoves();
        let mv = legal[index];
        let repetitions = match turn_key(&before, &legal) {
            None => 0,
            Some(key) => self.keys.iter().filter(|k| k.key == key).count(),
        };
        self.current = Current::judge(before, legal, repetitions);
        self.before_first = None;
        self.revision += 1;
        Ok(mv)
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
        self.revision += 1;
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
        self.revision += 1;
        Ok(())
    }

    /// The sub-moves grouped into turns, as comma PGN writes them.
    pub fn turns(&self) -> Vec<Turn> {
        let mut turns: Vec<Turn> = Vec::new();
        for (index, (before, mv)) in self.replay().enumerate() {
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

/// The repetition key of a turn-start position, from its legal sub-moves.
fn turn_key(position: &Position, legal: &SubMoveList) -> Option<u64> {
    position
        .is_turn_start()
        .then(|| position.repetition_key_given(legal))
}
