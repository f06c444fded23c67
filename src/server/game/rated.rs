//! The rated-game rules, in one home: who may create a rated game (the `POST /api/games` body
//! and a challenge alike), who may take a rated game's second seat, and which endings count and
//! for how much. Pure functions with typed refusals, like [`super::policy`]; the protocol
//! chooses each refusal's wire code.

use crate::rules::{Color, Outcome, Termination};

/// Why a game cannot be rated, or a rated game's seat not taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RatedRefused {
    #[error("sign in to create a rated game")]
    SignInToCreate,
    #[error("a rated game needs a clock")]
    NeedsClock,
    #[error("games against the computer are not rated")]
    NotAgainstComputer,
    #[error("a rated game can only be joined signed in")]
    SignInToJoin,
    #[error("you hold the other seat: a rated game needs two different players")]
    SamePlayer,
}

/// What a game asked to be rated is made of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RatedAsk {
    pub signed_in: bool,
    /// A live clock or days per turn: an untimed game has no speed to rate.
    pub timed: bool,
    pub against_computer: bool,
}

/// A rated game needs a signed-in creator, a clock and a human opponent (ratings measure
/// players against players, at one speed).
pub fn may_create(ask: RatedAsk) -> Result<(), RatedRefused> {
    if !ask.signed_in {
        return Err(RatedRefused::SignInToCreate);
    }
    if !ask.timed {
        return Err(RatedRefused::NeedsClock);
    }
    if ask.against_computer {
        return Err(RatedRefused::NotAgainstComputer);
    }
    Ok(())
}

/// Whether a joiner sits as its account (`true`) or by its seat token only (`false`); `joiner`
/// and `opponent` are the accounts (ids) of the one joining and of the other seat. A rated
/// game's seat needs an account, and another one than the opponent's. In an unrated game the
/// opponent's own account joining sits by its token only, so that a session never holds both
/// seats of one game.
pub fn joins_as_account<U: PartialEq>(
    rated: bool,
    joiner: Option<U>,
    opponent: Option<U>,
) -> Result<bool, RatedRefused> {
    let same = joiner.is_some() && joiner == opponent;
    match joiner {
        None if rated => Err(RatedRefused::SignInToJoin),
        None => Ok(false),
        Some(_) if same && rated => Err(RatedRefused::SamePlayer),
        Some(_) => Ok(!same),
    }
}

/// Whether a rated game that ends with `outcome` is rated: every ending but an abort (an
/// aborted game has not really been played).
pub fn counts(outcome: Outcome) -> bool {
    outcome.reason() != Termination::Aborted
}

/// White's score in a game that ended with `outcome`: 1 for a win, 0.5 for a draw.
pub fn white_score(outcome: Outcome) -> f64 {
    match outcome.winner() {
        Some(Color::White) => 1.0,
        Some(Color::Black) => 0.0,
        None => 0.5,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ASK: RatedAsk = RatedAsk {
        signed_in: true,
        timed: true,
        against_computer: false,
    };

    #[test]
    fn a_rated_game_needs_an_account_a_clock_and_a_human_opponent() {
        assert_eq!(may_create(ASK), Ok(()));
        let anonymous = RatedAsk {
            signed_in: false,
            ..ASK
        };
        assert_eq!(may_create(anonymous), Err(RatedRefused::SignInToCreate));
        let untimed = RatedAsk {
            timed: false,
            ..ASK
        };
        assert_eq!(may_create(untimed), Err(RatedRefused::NeedsClock));
        let computer = RatedAsk {
            against_computer: true,
            ..ASK
        };
        assert_eq!(may_create(computer), Err(RatedRefused::NotAgainstComputer));
    }

    #[test]
    fn a_rated_seat_needs_an_account_other_than_the_opponents() {
        assert_eq!(joins_as_account(true, Some(2), Some(1)), Ok(true));
        assert_eq!(
            joins_as_account(true, None, Some(1)),
            Err(RatedRefused::SignInToJoin)
        );
        assert_eq!(
            joins_as_account(true, Some(1), Some(1)),
            Err(RatedRefused::SamePlayer)
        );
    }

    #[test]
    fn an_unrated_seat_taken_by_the_opponents_account_sits_by_token_only() {
        assert_eq!(joins_as_account(false, Some(1), Some(1)), Ok(false));
        assert_eq!(joins_as_account(false, Some(2), Some(1)), Ok(true));
        assert_eq!(joins_as_account(false, None, Some(1)), Ok(false));
        assert_eq!(joins_as_account(false, Some(2), None), Ok(true));
    }

    #[test]
    fn every_ending_but_an_abort_counts_and_scores_the_winner() {
        let win = Outcome::Win {
            winner: Color::Black,
            reason: Termination::Resignation,
        };
        let draw = Outcome::Draw {
            reason: Termination::Agreement,
        };
        assert!(counts(win) && counts(draw));
        assert!(!counts(crate::server::game::policy::aborted()));
        assert_eq!(white_score(win), 0.0);
        assert_eq!(white_score(draw), 0.5);
    }
}
