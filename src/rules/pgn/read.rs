//! The tolerant import of comma PGN: the record replayed ([`super::replay`])
//! with the strict-only notes ignored, and the ending its tags state
//! declared when it fits the final position.

use super::super::game::{Claim, Game};
use super::super::outcome::{Outcome, Termination};
use super::lex::{RawGame, split_games};
use super::replay::replay;
use super::termination::termination_fits;
use super::{GameResult, PgnError, PgnTags};

/// A game read from PGN.
#[derive(Clone, Debug)]
pub struct ImportedGame {
    /// The replayed game. Its outcome is the board's, or the one the
    /// `Termination` tag and result declare when they fit the position
    /// (resignation, agreement, time forfeit, abandonment, abort, a draw
    /// claim that is available).
    pub game: Game,
    /// Every tag, in the order written.
    pub tags: Vec<(String, String)>,
    /// The movetext's result token (or, if it had none, the `Result` tag).
    pub result: Option<GameResult>,
}

impl ImportedGame {
    /// The first tag of that name (tag names are case-sensitive).
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The header fields a server would keep.
    pub fn header(&self) -> PgnTags {
        PgnTags::from_pairs(&self.tags)
    }
}

/// Reads every game of a PGN text tolerantly: a missing or wrong `+`/`#` is
/// repaired and over-disambiguated SAN accepted. Each game is read on its
/// own, so one bad game does not hide the others. Any `&str` is safe.
pub fn read_games(text: &str) -> Vec<Result<ImportedGame, PgnError>> {
    split_games(text).iter().map(import).collect()
}

/// The first game of a PGN text, for pasting a single game.
pub fn read_game(text: &str) -> Option<Result<ImportedGame, PgnError>> {
    split_games(text).first().map(import)
}

/// The first game of a PGN text replayed as far as it goes: every sub-move
/// before the first problem that stops reading (none if the header is bad).
/// For showing where a bad record stops.
pub fn read_game_prefix(text: &str) -> Option<Game> {
    split_games(text).first().map(|raw| replay(raw).game)
}

fn import(raw: &RawGame) -> Result<ImportedGame, PgnError> {
    let replay = replay(raw);
    if let Some(err) = replay.fatal {
        return Err(err);
    }
    let mut game = replay.game;
    let result = raw
        .result
        .or_else(|| raw.tag("Result").and_then(|t| t.parse().ok()));
    let termination = raw.tag("Termination").and_then(|t| t.parse().ok());
    declare(&mut game, termination, result);
    Ok(ImportedGame {
        game,
        tags: raw.tags.clone(),
        result,
    })
}

/// Gives the game the outcome its tags state, when the position allows it.
/// Endings the board decides need nothing; anything that does not fit is
/// left undeclared (strict validation reports it).
fn declare(game: &mut Game, termination: Option<Termination>, result: Option<GameResult>) {
    use Termination as T;
    if game.outcome().is_some() {
        return;
    }
    let (Some(reason), Some(result)) = (termination, result) else {
        return;
    };
    if !termination_fits(reason, result, game.position()) {
        return;
    }
    let outcome = match (reason, result) {
        (T::ThreefoldRepetition, GameResult::Draw) => {
            let _ = game.claim(Claim::ThreefoldRepetition);
            return;
        }
        (T::FiftyMoveRule, GameResult::Draw) => {
            let _ = game.claim(Claim::FiftyMoveRule);
            return;
        }
        (T::Resignation | T::TimeForfeit | T::Abandonment, r) if r.winner().is_some() => {
            r.winner().map(|winner| Outcome::Win { winner, reason })
        }
        (T::Agreement | T::TimeForfeit | T::Abandonment, GameResult::Draw) => {
            Some(Outcome::Draw { reason })
        }
        (T::Aborted, GameResult::Ongoing) => Some(Outcome::Draw { reason }),
        _ => None,
    };
    if let Some(outcome) = outcome {
        let _ = game.declare(outcome);
    }
}
