//! The decisions, the one entrance by which a game changes: an [`Input`] (a seated player's
//! request, a join, the rematch created, time passing) checked against a game's state and
//! turned into the complete list of events to commit, or a typed refusal. Complete: a sub-move that
//! ends the game on the board decides `[Move, End]` together, so the room commits both at once
//! and never reads the applied state to find an ending it owes. Nothing here changes the
//! state; what a decision found out (the next position, the SAN, the ending) travels with its
//! events as [`Checked`] values, which [`GameState::apply`] folds in without judging again.

use std::time::Instant;

use super::event::{Event, SeatUser};
use super::expiry::Expiry;
use super::lag::{Lag, LagTracker};
use super::policy::{self, BerserkRefused, RematchRefused, TakebackRefused};
use super::rated::{self, RatedRefused};
use super::state::GameState;
use crate::rules::game::Preview;
use crate::rules::{Claim, Color, GameError, Outcome, PlayError, Position, SubMove, Termination};
use crate::server::domain::status::GameStatus;
use crate::server::game::policy::TakebackLimits;

/// Everything that may change a game; [`GameState::decide`] decides each, and nothing else
/// makes the events a room commits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    /// A seated player's request (a socket, or the computer seat in process).
    Seat { color: Color, request: Request },
    /// Someone takes the free seat (the HTTP join): `seat_hash`, the hash of the new seat's
    /// token; `user`, the joiner's account when signed in (with its rating for a game with a
    /// clock).
    Join {
        seat_hash: String,
        user: Option<SeatUser>,
    },
    /// The rematch both players agreed to ([`Decided::CreateRematch`]) exists now, as game `id`.
    RematchCreated { id: String },
    /// Time passed: whatever the clocks impose now (a flag fall after the flag grace, a first
    /// turn not played in time, a correspondence deadline), or else the game's expiry.
    Tick,
}

impl Input {
    /// `color`'s `request`.
    pub fn seat(color: Color, request: Request) -> Input {
        Input::Seat { color, request }
    }
}

/// The rules a server chooses for all its games, which [`GameState::decide`] applies: the
/// takeback limits and the expiry of games nobody plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HouseRules {
    pub takebacks: TakebackLimits,
    pub expiry: Expiry,
}

/// What a seated player (a socket or an in-process agent) asks of its game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Request {
    Move {
        mv: SubMove,
        ack: Option<String>,
        /// The lag of the connection it came from ([`Lag::NONE`] for the computer).
        lag: Lag,
    },
    Takeback,
    Resign,
    DrawOffer,
    DrawAccept,
    DrawDecline,
    /// A draw claim: the one named, or the first available.
    DrawClaim(Option<Claim>),
    Abort,
    /// Half the clock and no increment for a point more on a win (arena games).
    Berserk,
    /// Victory by abandonment; whether the opponent is away is the room's knowledge.
    ClaimVictory {
        opponent_away: bool,
    },
    /// `seat_hash`: the hash of the offerer's rematch token.
    RematchOffer {
        seat_hash: String,
    },
    RematchAccept,
}

/// Why a request was refused; nothing changed. The wire code of each is chosen by the
/// protocol (`protocol::project`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Refused {
    #[error("the game is over")]
    GameOver,
    #[error("waiting for an opponent")]
    NotStarted,
    #[error("it is not your turn")]
    NotYourTurn,
    #[error("{0}")]
    Illegal(PlayError),
    #[error("the position changed since version {seen} (now {now}); look again and replay")]
    StalePosition { seen: u64, now: u64 },
    #[error("version {seen} is ahead of the game (at {now}); resync")]
    AheadOfGame { seen: u64, now: u64 },
    #[error(transparent)]
    Takeback(#[from] TakebackRefused),
    #[error("you already offered a draw")]
    DrawAlreadyOffered,
    #[error("one draw offer per turn: offer again after the next move")]
    OneDrawOfferPerTurn,
    #[error("no draw offer to accept")]
    NoDrawOfferToAccept,
    #[error("no draw offer to decline")]
    NoDrawOfferToDecline,
    #[error("no draw claim is available now")]
    NoClaim,
    #[error("both sides have played: the game can no longer be aborted")]
    AbortWindowOver,
    #[error("the game has not really started: abort it instead")]
    NotReallyStarted,
    #[error("your opponent has not been disconnected long enough")]
    OpponentNotAway,
    #[error("a correspondence game is not won by the opponent's absence: it ends on time")]
    NoAbandonmentInCorrespondence,
    #[error(transparent)]
    Rematch(#[from] RematchRefused),
    #[error("you already offered a rematch")]
    RematchAlreadyOffered,
    #[error("no rematch offer to accept")]
    NoRematchOffer,
    #[error("both seats are taken")]
    SeatsTaken,
    #[error(transparent)]
    Rated(#[from] RatedRefused),
    #[error(transparent)]
    Berserk(#[from] BerserkRefused),
}

/// What a sub-move's decision found out, kept for [`GameState::apply`]: the rules' preview
/// (the next position, its legal sub-moves, the ending it reaches), its SAN and mover.
#[derive(Clone, Debug)]
pub struct MovePreview {
    pub(super) mv: SubMove,
    pub(super) mover: Color,
    pub(super) san: String,
    pub(super) preview: Preview,
    /// The lag compensation the decision gave (live moves only: a replay recomputes none).
    pub(super) lag: Option<LagCredit>,
}

/// What a sub-move's lag compensation was, and the mover's quota after it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LagCredit {
    pub compensation: std::time::Duration,
    pub(super) after: LagTracker,
}

impl MovePreview {
    /// The game's ending after the sub-move (board or fivefold), if any.
    pub(super) fn outcome(&self) -> Option<Outcome> {
        self.preview.outcome()
    }

    /// The position after the sub-move.
    pub(super) fn next(&self) -> &Position {
        self.preview.position()
    }
}

/// Two previews are the same decision when they play the same sub-move, by the same side,
/// to the same position (the rules' preview itself has no equality).
impl PartialEq for MovePreview {
    fn eq(&self, other: &MovePreview) -> bool {
        self.mv == other.mv
            && self.mover == other.mover
            && self.san == other.san
            && self.next() == other.next()
    }
}

impl Eq for MovePreview {}

/// An event that was decided (or, replaying a log, checked) against the state it will be
/// applied to: the only thing [`GameState::apply`] takes, so that applying cannot fail.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checked {
    pub(super) event: Event,
    pub(super) preview: Option<MovePreview>,
    /// The player whose `abort` request decided this `end` (fair play judges who aborted:
    /// `crate::server::safety::playban`). Never logged: the event itself is as before, so
    /// only the commit made from the decision sees it.
    pub(super) aborted_by: Option<Color>,
}

impl Checked {
    pub fn event(&self) -> &Event {
        &self.event
    }

    /// The lag compensation a live sub-move's decision credited (zero for anything else).
    pub fn lag_compensation(&self) -> std::time::Duration {
        self.preview
            .as_ref()
            .and_then(|p| p.lag)
            .map_or(std::time::Duration::ZERO, |c| c.compensation)
    }

    /// The player whose `abort` request decided this event, if it was one.
    pub fn aborted_by(&self) -> Option<Color> {
        self.aborted_by
    }

    /// An event that needs no judging against the position (offers, rematch, end, join).
    pub(super) fn plain(event: Event) -> Checked {
        Checked {
            event,
            preview: None,
            aborted_by: None,
        }
    }
}

/// The events one request decided, in order: one, or a sub-move and the ending it caused.
pub type Decision = Vec<Checked>;

/// What an input came to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decided {
    /// Commit these events, in order.
    Events(Decision),
    /// A sub-move that arrived in the flag grace with no time left, even compensated: the
    /// mover lost on time before it came. Commit this `end`, and refuse the sub-move.
    LostOnTime(Box<Checked>),
    /// A rematch offer met the opponent's (or one was accepted): the room creates the new
    /// game, then decides [`Input::RematchCreated`] to record it.
    CreateRematch,
    /// Nothing to do (time passed, and nothing was due).
    Nothing,
}

fn one(checked: Checked) -> Decided {
    Decided::Events(vec![checked])
}

impl GameState {
    /// Decides `input` at `now` (`at_ms`: the wall clock, for the events) under `house`: the
    /// one entrance by which a game changes.
    pub fn decide(
        &self,
        input: Input,
        house: &HouseRules,
        now: Instant,
        at_ms: i64,
    ) -> Result<Decided, Refused> {
        match input {
            Input::Seat { color, request } => {
                self.decide_request(color, request, house, now, at_ms)
            }
            Input::Join { seat_hash, user } => Ok(one(self.decide_join(seat_hash, user, at_ms)?)),
            Input::RematchCreated { id } => Ok(one(self.decide_rematch(id, at_ms)?)),
            Input::Tick => Ok(self
                .time_imposes(&house.expiry, now, at_ms)
                .map_or(Decided::Nothing, |end| one(Checked::plain(end)))),
        }
    }

    /// A seated player's request.
    fn decide_request(
        &self,
        color: Color,
        request: Request,
        house: &HouseRules,
        now: Instant,
        at_ms: i64,
    ) -> Result<Decided, Refused> {
        Ok(match request {
            Request::Move { mv, ack, lag } => self.decide_move(color, mv, ack, lag, now, at_ms)?,
            Request::Takeback => one(self.decide_takeback(color, house.takebacks, now, at_ms)?),
            Request::Resign => {
                self.require_playing()?;
                one(self.end(
                    Outcome::Win {
                        winner: !color,
                        reason: Termination::Resignation,
                    },
                    now,
                    at_ms,
                ))
            }
            Request::DrawOffer => self.decide_draw_offer(color, now, at_ms)?,
            Request::DrawAccept => one(self.decide_draw_accept(color, now, at_ms)?),
            Request::DrawDecline => {
                self.require_playing()?;
                if self.draw_offer != Some(!color) {
                    return Err(Refused::NoDrawOfferToDecline);
                }
                one(Checked::plain(Event::DrawDecline { at_ms, by: color }))
            }
            Request::DrawClaim(wanted) => {
                self.require_turn(color)?;
                let available = self.game.available_claims();
                let claim = match wanted {
                    Some(claim) => available.iter().copied().find(|&c| c == claim),
                    None => available.first().copied(),
                }
                .ok_or(Refused::NoClaim)?;
                one(self.end(
                    Outcome::Draw {
                        reason: claim.termination(),
                    },
                    now,
                    at_ms,
                ))
            }
            Request::Berserk => {
                self.require_playing()?;
                let played = policy::has_played(
                    color,
                    self.game.start().side_to_move(),
                    self.turns_completed,
                    self.game.position().phase(),
                );
                let arena_with_clock = self.arena.is_some() && self.clock.is_some();
                policy::berserk_allowed(arena_with_clock, self.berserk[color as usize], played)?;
                one(Checked::plain(Event::Berserk { at_ms, by: color }))
            }
            Request::Abort => {
                if self.ended_ms.is_some() {
                    return Err(Refused::GameOver);
                }
                if !policy::abortable(self.turns_completed) {
                    return Err(Refused::AbortWindowOver);
                }
                let mut end = self.end(policy::aborted(), now, at_ms);
                end.aborted_by = Some(color);
                one(end)
            }
            Request::ClaimVictory { opponent_away } => {
                self.require_playing()?;
                if self.days_per_turn.is_some() {
                    return Err(Refused::NoAbandonmentInCorrespondence);
                }
                if policy::abortable(self.turns_completed) {
                    return Err(Refused::NotReallyStarted);
                }
                if !opponent_away {
                    return Err(Refused::OpponentNotAway);
                }
                one(self.end(
                    Outcome::Win {
                        winner: color,
                        reason: Termination::Abandonment,
                    },
                    now,
                    at_ms,
                ))
            }
            Request::RematchOffer { seat_hash } => {
                self.require_rematch_possible()?;
                match self.rematch_offer {
                    Some(by) if by == !color => Decided::CreateRematch,
                    Some(_) => return Err(Refused::RematchAlreadyOffered),
                    None => one(Checked::plain(Event::RematchOffer {
                        at_ms,
                        by: color,
                        seat_hash: Some(seat_hash),
                    })),
                }
            }
            Request::RematchAccept => {
                self.require_rematch_possible()?;
                if self.rematch_offer != Some(!color) {
                    return Err(Refused::NoRematchOffer);
                }
                Decided::CreateRematch
            }
        })
    }

    /// Refuses a `move` played on version `seen` when the position changed since (another tab
    /// of the same seat moved or took back first) or when the game never had that version.
    /// Events that leave the position alone (a draw offer, say) do not make a move stale.
    /// `None` (a client that does not send `v`) is not checked.
    pub fn check_seen(&self, seen: Option<u64>) -> Result<(), Refused> {
        match seen {
            Some(seen) if seen < self.position_version => Err(Refused::StalePosition {
                seen,
                now: self.version(),
            }),
            Some(seen) if seen > self.version() => Err(Refused::AheadOfGame {
                seen,
                now: self.version(),
            }),
            _ => Ok(()),
        }
    }

    fn require_playing(&self) -> Result<(), Refused> {
        if self.ended_ms.is_some() {
            return Err(Refused::GameOver);
        }
        if self.status() == GameStatus::Open {
            return Err(Refused::NotStarted);
        }
        Ok(())
    }

    fn require_turn(&self, color: Color) -> Result<(), Refused> {
        self.require_playing()?;
        if self.game.position().side_to_move() != color {
            return Err(Refused::NotYourTurn);
        }
        Ok(())
    }

    /// A sub-move by `color`, and the ending it causes on the board, if any.
    fn decide_move(
        &self,
        color: Color,
        mv: SubMove,
        ack: Option<String>,
        lag: Lag,
        now: Instant,
        at_ms: i64,
    ) -> Result<Decided, Refused> {
        self.require_turn(color)?;
        let mut preview = self.preview(mv).map_err(Refused::Illegal)?;
        let ended = policy::turn_ended(color, preview.next(), preview.outcome());
        let mut out_of_time = false;
        let clock = self.clock.as_ref().map(|clock| {
            let mut clock = clock.clone();
            // Lag compensation, credited on every sub-move while the mover's clock runs.
            if let Some((side, since)) = clock.running_since()
                && side == color
            {
                let spent = now.saturating_duration_since(since);
                let (compensation, after) = self.lag[color as usize].on_submove(lag, spent);
                let credit = u64::try_from(compensation.as_millis()).unwrap_or(u64::MAX);
                clock.credit(color, credit);
                preview.lag = Some(LagCredit {
                    compensation,
                    after,
                });
                // Arrived in the flag grace, and even compensated there was no time left.
                out_of_time = clock.remaining(color, now) == 0;
            }
            if out_of_time {
                return clock.readings(now);
            }
            match preview.outcome() {
                // The game ends: the mover's time is charged, without the increment.
                Some(_) => clock.stop(now),
                None if ended => clock.end_turn(now),
                None => {}
            }
            clock.readings(now)
        });
        if out_of_time {
            // Lost on time, as if the flag had fallen before the sub-move came.
            let outcome = policy::time_forfeit(self.game.position(), color);
            return Ok(Decided::LostOnTime(Box::new(Checked::plain(Event::End {
                at_ms,
                outcome,
                clock,
            }))));
        }
        let outcome = preview.outcome();
        let mut decision = Vec::with_capacity(2);
        decision.push(Checked {
            event: Event::Move {
                at_ms,
                mv,
                ack,
                clock,
            },
            preview: Some(preview),
            aborted_by: None,
        });
        if let Some(outcome) = outcome {
            decision.push(Checked::plain(Event::End {
                at_ms,
                outcome,
                clock,
            }));
        }
        Ok(Decided::Events(decision))
    }

    /// What playing `mv` would lead to, judged by the rules with the game's cached legal list
    /// (one legal-move generation: the next position's, which the next decision reuses).
    pub(super) fn preview(&self, mv: SubMove) -> Result<MovePreview, PlayError> {
        let preview = self.game.preview(mv).map_err(|e| match e {
            GameError::Play(play) => play,
            GameError::GameOver(outcome) => PlayError::GameOver(outcome),
            _ => PlayError::Illegal(mv),
        })?;
        Ok(MovePreview {
            mv,
            mover: self.game.position().side_to_move(),
            san: self.game.san(&preview),
            preview,
            lag: None,
        })
    }

    fn decide_takeback(
        &self,
        color: Color,
        limits: TakebackLimits,
        now: Instant,
        at_ms: i64,
    ) -> Result<Checked, Refused> {
        self.require_turn(color)?;
        policy::takeback_allowed(
            self.game.position(),
            self.game.submove_count(),
            self.takebacks_this_turn,
            self.takebacks[color as usize],
            limits,
        )?;
        Ok(Checked::plain(Event::Takeback {
            at_ms,
            clock: self.readings(now),
        }))
    }

    fn decide_draw_offer(
        &self,
        color: Color,
        now: Instant,
        at_ms: i64,
    ) -> Result<Decided, Refused> {
        self.require_playing()?;
        match self.draw_offer {
            Some(by) if by == !color => Ok(one(self.decide_draw_accept(color, now, at_ms)?)),
            Some(_) => Err(Refused::DrawAlreadyOffered),
            None if !policy::may_offer_draw(
                self.draw_offered_at[color as usize],
                self.turns_completed,
            ) =>
            {
                Err(Refused::OneDrawOfferPerTurn)
            }
            None => Ok(one(Checked::plain(Event::DrawOffer { at_ms, by: color }))),
        }
    }

    fn decide_draw_accept(
        &self,
        color: Color,
        now: Instant,
        at_ms: i64,
    ) -> Result<Checked, Refused> {
        self.require_playing()?;
        if self.draw_offer != Some(!color) {
            return Err(Refused::NoDrawOfferToAccept);
        }
        Ok(self.end(
            Outcome::Draw {
                reason: Termination::Agreement,
            },
            now,
            at_ms,
        ))
    }

    fn require_rematch_possible(&self) -> Result<(), Refused> {
        let outcome = self.game.outcome().filter(|_| self.ended_ms.is_some());
        let both = self.seat_taken(Color::White) && self.seat_taken(Color::Black);
        Ok(policy::rematch_possible(
            outcome,
            both,
            self.rematch.is_some(),
        )?)
    }

    /// The `rematch` event recording the new game `id` (created by the room after
    /// [`Decided::CreateRematch`]).
    fn decide_rematch(&self, id: String, at_ms: i64) -> Result<Checked, Refused> {
        self.require_rematch_possible()?;
        Ok(Checked::plain(Event::Rematch {
            at_ms,
            id,
            derived_seats: true,
        }))
    }

    /// The HTTP join: the free seat for `seat_hash`, belonging to `user` when the player is
    /// signed in, as [`rated::joins_as_account`] says ([`GameState::seat_of_user`]).
    fn decide_join(
        &self,
        seat_hash: String,
        user: Option<SeatUser>,
        at_ms: i64,
    ) -> Result<Checked, Refused> {
        let color = self.free_seat().ok_or(if self.ended_ms.is_some() {
            Refused::GameOver
        } else {
            Refused::SeatsTaken
        })?;
        let opponent = self.user(!color).map(|u| u.id);
        let user = if rated::joins_as_account(self.rated, user.as_ref().map(|u| u.id), opponent)? {
            user
        } else {
            None
        };
        Ok(Checked::plain(Event::Joined {
            at_ms,
            color,
            seat_hash,
            computer: None,
            user,
        }))
    }

    /// The game ends now with `outcome` (from off the board, a claim, or the clock).
    pub fn end(&self, outcome: Outcome, now: Instant, at_ms: i64) -> Checked {
        Checked::plain(Event::End {
            at_ms,
            outcome,
            clock: self.readings(now),
        })
    }
}
