//! What a game's event log means: [`GameState`] is the fold of its events with the accessors
//! the room and the projections read. Pure: no I/O, no async, no wire or stored text; the
//! current instant is always an argument. Requests become events in `decide.rs`; events are
//! folded in by `apply.rs`; the rules of game management are in `policy.rs`.
//!
//! What it keeps is what the room needs, bounded whatever the game's length apart from the
//! record itself (the [`Game`]: sub-moves and repetition keys): the last sub-move's SAN (for
//! its message), the ack ids of the last [`ACK_WINDOW`] accepted sub-moves (for idempotency),
//! offers, seats, the clock. The SAN of the whole record is recomputed when a snapshot is
//! built ([`GameState::record`]), which the room does once per version.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use super::event::{ClockSpec, DaysPerTurn, Event, SeatUser, TimeControl, Variant};
use super::lag::LagTracker;
use super::policy;
use crate::engine::Level;
use crate::rules::{Color, Game, Position, SubMove};
use crate::server::domain::status::GameStatus;
use crate::server::domain::user::UserId;
use crate::server::game::clock::Clock;
use crate::server::ids;

/// How many accepted sub-moves' ack ids a game remembers. A client re-sends only the moves it
/// has no ack for, which are its last ones (one in flight per seat and tab); 64 covers many
/// tabs and reconnects, and keeps a long game's idempotency table from growing with it.
pub const ACK_WINDOW: usize = 64;

/// One game as its log says, plus the live clock.
#[derive(Clone, Debug)]
pub struct GameState {
    pub id: String,
    pub variant: Variant,
    /// The live clock's time control (`None` for an untimed or a correspondence game: see
    /// [`GameState::time_control`]).
    pub clock_spec: Option<ClockSpec>,
    pub created_ms: i64,
    pub updated_ms: i64,
    /// Whether the game appears in the lobby listings (see `Event::Created`).
    pub listed: bool,
    /// Whether the game counts for the players' ratings (see `Event::Created`).
    pub rated: bool,
    /// The arena tournament that paired the game (see `Event::Created`).
    pub arena: Option<String>,
    pub(super) game: Game,
    /// The SAN and mover of the last sub-move played (what its `move` message carries).
    pub(super) last_san: Option<String>,
    pub(super) last_mover: Option<Color>,
    /// The S1 the last takeback withdrew (what its `takeback` message carries).
    pub(super) taken_back: Option<SubMove>,
    /// Token hashes, indexed by `Color as usize`.
    pub(super) seats: [Option<String>; 2],
    /// The accounts the seats belong to, indexed by `Color as usize` (`Event::Created`,
    /// `Event::Joined`): a connection signed in as one of them holds that seat.
    pub(super) users: [Option<SeatUser>; 2],
    /// The seat the server's computer player holds, and its level (`Event::Joined`).
    pub(super) computer: Option<ComputerSeat>,
    pub(super) clock: Option<Clock>,
    /// Each seat's lag quota, indexed by `Color as usize` ([`super::lag`]): live, not logged
    /// ([`LagTracker::OFF`] until the room turns compensation on).
    pub(super) lag: [LagTracker; 2],
    /// Clock readings frozen at the end.
    pub(super) end_clock: Option<[u64; 2]>,
    pub(super) turns_completed: u32,
    /// While the first-move timer runs ([`policy::first_move_timer_runs`]): since when.
    pub(super) first_move_since: Option<Instant>,
    pub(super) first_move_limit: Duration,
    /// A correspondence game's days per turn (issue 12).
    pub(super) days_per_turn: Option<DaysPerTurn>,
    /// Unix ms at which the side to move's current turn began: the `joined` that started the
    /// game or the `move` that ended the opponent's turn (a takeback does not restart it).
    pub(super) turn_started_ms: Option<i64>,
    /// This process's boot and the grace for deadlines that passed before it: set by the room
    /// ([`GameState::set_downtime`]), [`policy::Downtime::NONE`] elsewhere.
    pub(super) downtime: policy::Downtime,
    /// When the game ended (the `end` event's time); `None` while it is not over.
    pub(super) ended_ms: Option<i64>,
    /// Who berserked (`Event::Berserk`), indexed by `Color as usize`.
    pub(super) berserk: [bool; 2],
    pub(super) draw_offer: Option<Color>,
    pub(super) rematch_offer: Option<Color>,
    /// The hash of the standing offer's rematch token (`Event::RematchOffer`).
    pub(super) rematch_offer_seat: Option<String>,
    pub(super) rematch: Option<String>,
    /// Whether the rematch's seats are derived from this game's tokens (`Event::Rematch`).
    pub(super) rematch_derived: bool,
    pub(super) acks: RecentAcks,
    /// The version of the last event that changed the position (join, move, takeback): a
    /// `move` played on an older version is stale.
    pub(super) position_version: u64,
    /// Takebacks made in this game, indexed by `Color as usize`.
    pub(super) takebacks: [u32; 2],
    /// Takebacks the side to move made in the current turn.
    pub(super) takebacks_this_turn: u32,
    /// Per colour: `turns_completed` when it last offered a draw ([`policy::may_offer_draw`]).
    pub(super) draw_offered_at: [Option<u32>; 2],
    /// Number of events applied; the next event's version.
    pub(super) events: u64,
}

/// The ack ids of the last [`ACK_WINDOW`] accepted sub-moves that had one, oldest first: each
/// as a 64-bit hash of its mover and id, with the version it was accepted at. Every live game
/// keeps this table: with the ids themselves (a boxed string each) it was ~3 KiB of a game's
/// 24 KiB budget, hashed it is 1 KiB. Two ids of one side that hash alike (a chance of 2^-58
/// in a window of 64) would make the later move look like a re-send of the earlier; the keys
/// are drawn per process, so a client cannot aim for that, and it could only ever refuse that
/// side's own move.
#[derive(Clone, Debug, Default)]
pub struct RecentAcks(VecDeque<(u64, u64)>);

impl RecentAcks {
    pub fn push(&mut self, mover: Color, id: String, v: u64) {
        if self.0.len() == ACK_WINDOW {
            self.0.pop_front();
        }
        self.0.push_back((ack_key(mover, &id), v));
    }

    /// The version of `color`'s accepted sub-move with ack id `id`.
    pub fn find(&self, color: Color, id: &str) -> Option<u64> {
        let key = ack_key(color, id);
        self.0
            .iter()
            .rev()
            .find(|(known, _)| *known == key)
            .map(|(_, v)| *v)
    }
}

/// The hash [`RecentAcks`] keeps for an ack id of `mover`.
fn ack_key(mover: Color, id: &str) -> u64 {
    static KEYS: std::sync::OnceLock<std::collections::hash_map::RandomState> =
        std::sync::OnceLock::new();
    std::hash::BuildHasher::hash_one(KEYS.get_or_init(Default::default), (mover as u8, id))
}

/// The parts of a [`GameState`] that do not come from its event log but from when things
/// happened in this process: the running clock, the first-turn timer, the clocks frozen at
/// the end. A replay restarts them at its `now`; a room that rebuilds its state from the store
/// puts the live ones back, so that a store failure neither gives nor takes time.
#[derive(Clone, Debug)]
pub struct LiveParts {
    clock: Option<Clock>,
    lag: [LagTracker; 2],
    end_clock: Option<[u64; 2]>,
    first_move_since: Option<Instant>,
}

/// The seat of a computer player: its colour and level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ComputerSeat {
    pub color: Color,
    pub level: Level,
}

/// One sub-move of the record, for snapshots.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordEntry {
    pub mv: SubMove,
    pub san: String,
    pub color: Color,
}

impl GameState {
    /// The state of a new game: event 0 applied.
    pub(super) fn new(id: &str, created: &Event, first_move_limit: Duration) -> Option<GameState> {
        let Event::Created {
            at_ms,
            variant,
            start,
            clock,
            creator,
            seat_hash,
            listed,
            rated,
            user,
            arena,
        } = created
        else {
            return None;
        };
        let mut seats = [None, None];
        seats[*creator as usize] = Some(seat_hash.clone());
        let mut users = [None, None];
        users[*creator as usize] = user.clone();
        Some(GameState {
            id: id.to_string(),
            variant: *variant,
            clock_spec: clock.and_then(TimeControl::live),
            created_ms: *at_ms,
            updated_ms: *at_ms,
            listed: *listed,
            rated: *rated,
            arena: arena.clone(),
            game: Game::new(*start),
            last_san: None,
            last_mover: None,
            taken_back: None,
            seats,
            users,
            computer: None,
            clock: clock.and_then(TimeControl::live).map(|c| {
                Clock::new(
                    u64::from(c.base_secs) * 1000,
                    u64::from(c.increment_secs) * 1000,
                )
            }),
            lag: [LagTracker::OFF; 2],
            end_clock: None,
            turns_completed: 0,
            first_move_since: None,
            first_move_limit,
            days_per_turn: clock.and_then(TimeControl::days_per_turn),
            turn_started_ms: None,
            downtime: policy::Downtime::NONE,
            ended_ms: None,
            berserk: [false; 2],
            draw_offer: None,
            rematch_offer: None,
            rematch_offer_seat: None,
            rematch: None,
            rematch_derived: false,
            acks: RecentAcks::default(),
            position_version: 0,
            takebacks: [0, 0],
            takebacks_this_turn: 0,
            draw_offered_at: [None, None],
            events: 1,
        })
    }

    /// A copy of the live (not logged) parts: small, whatever the game's length.
    pub fn live_parts(&self) -> LiveParts {
        LiveParts {
            clock: self.clock.clone(),
            lag: self.lag,
            end_clock: self.end_clock,
            first_move_since: self.first_move_since,
        }
    }

    /// Puts back live parts taken from a state at the same version.
    pub fn restore_live_parts(&mut self, live: LiveParts) {
        self.clock = live.clock;
        self.lag = live.lag;
        self.end_clock = live.end_clock;
        self.first_move_since = live.first_move_since;
    }

    /// The game's time control: its live clock, its days per turn, or `None` (untimed).
    pub fn time_control(&self) -> Option<TimeControl> {
        self.clock_spec
            .map(TimeControl::Live)
            .or(self.days_per_turn.map(TimeControl::from))
    }

    /// A correspondence game's days per turn.
    pub fn days_per_turn(&self) -> Option<DaysPerTurn> {
        self.days_per_turn
    }

    /// Unix ms at which the side to move's current turn runs out, as the log says: the
    /// `at_ms` of the event that began the turn plus the days per turn
    /// ([`policy::turn_deadline`]). `None` unless a correspondence game being played. What the
    /// store's deadline index keeps; the deadline that applies in this process is
    /// [`GameState::effective_deadline_ms`].
    pub fn turn_deadline_ms(&self) -> Option<i64> {
        if self.status() != GameStatus::Playing {
            return None;
        }
        Some(policy::turn_deadline(
            self.turn_started_ms?,
            self.days_per_turn?,
        ))
    }

    /// The deadline that applies now, after the downtime grace ([`policy::after_downtime`]):
    /// when the room flags the game, and what the views show.
    pub fn effective_deadline_ms(&self) -> Option<i64> {
        self.turn_deadline_ms().map(|d| self.downtime.effective(d))
    }

    /// Tells the state when this process booted and the grace it gives deadlines that passed
    /// before (the room does, from its config, when it starts).
    pub fn set_downtime(&mut self, downtime: policy::Downtime) {
        self.downtime = downtime;
    }

    /// Turns lag compensation on (fresh quotas for a live clock) or off (the room does, from
    /// `--lag-compensation`, when it starts; off elsewhere, so that the pure tests' flags fall
    /// on the dot).
    pub fn set_lag_compensation(&mut self, on: bool) {
        let tracker = match self.clock_spec {
            Some(spec) if on => LagTracker::new(spec),
            _ => LagTracker::OFF,
        };
        self.lag = [tracker; 2];
    }

    /// `color`'s lag quota.
    pub fn lag_tracker(&self, color: Color) -> LagTracker {
        self.lag[color as usize]
    }

    /// How long after the running clock reads zero its flag falls ([`LagTracker::grace`]).
    pub fn flag_grace(&self) -> Duration {
        self.clock
            .as_ref()
            .and_then(Clock::running)
            .map_or(Duration::ZERO, |side| self.lag[side as usize].grace())
    }

    /// What [`GameState::set_downtime`] set.
    pub fn downtime(&self) -> policy::Downtime {
        self.downtime
    }

    /// The version of the last applied event.
    pub fn version(&self) -> u64 {
        self.events - 1
    }

    pub fn game(&self) -> &Game {
        &self.game
    }

    pub fn position(&self) -> &Position {
        self.game.position()
    }

    /// The SAN of the last sub-move played, if the last position change was one.
    pub fn last_san(&self) -> Option<&str> {
        self.last_san.as_deref()
    }

    /// The colour that played the last sub-move.
    pub fn last_mover(&self) -> Option<Color> {
        self.last_mover
    }

    /// The S1 withdrawn by the last takeback.
    pub fn taken_back(&self) -> Option<SubMove> {
        self.taken_back
    }

    pub fn is_finished(&self) -> bool {
        self.ended_ms.is_some()
    }

    /// When the game ended (unix ms of its `end` event), if it has.
    pub fn ended_ms(&self) -> Option<i64> {
        self.ended_ms
    }

    /// Whether the players' links are measured for lag compensation now
    /// ([`policy::lag_measured`]).
    pub fn measures_lag(&self) -> bool {
        policy::lag_measured(self.clock_spec.is_some(), self.status())
    }

    pub fn status(&self) -> GameStatus {
        if self.ended_ms.is_some() {
            GameStatus::Finished
        } else if self.seats.iter().all(Option::is_some) {
            GameStatus::Playing
        } else {
            GameStatus::Open
        }
    }

    /// The seat `token` belongs to, if any. Never the computer's seat: no token holds it.
    pub fn seat_of(&self, token: &str) -> Option<Color> {
        let computer = self.computer.map(|c| c.color);
        Color::ALL.into_iter().find(|&c| {
            Some(c) != computer
                && self.seats[c as usize]
                    .as_deref()
                    .is_some_and(|hash| ids::token_matches(token, hash))
        })
    }

    /// The seat the account `user` holds, if any: what a connection signed in as that user is
    /// seated as, with no token (any device). Never the computer's seat. At most one seat has
    /// a given user (a join leaves the user out of a seat taken by the account that holds the
    /// other one: [`super::rated::joins_as_account`]).
    pub fn seat_of_user(&self, user: UserId) -> Option<Color> {
        let computer = self.computer.map(|c| c.color);
        Color::ALL.into_iter().find(|&c| {
            Some(c) != computer
                && self.users[c as usize]
                    .as_ref()
                    .is_some_and(|u| u.id == user)
        })
    }

    /// The account that holds `color`'s seat, if it was taken signed in.
    pub fn user(&self, color: Color) -> Option<&SeatUser> {
        self.users[color as usize].as_ref()
    }

    /// The computer player's seat, in a game against the computer.
    pub fn computer(&self) -> Option<ComputerSeat> {
        self.computer
    }

    pub fn seat_taken(&self, color: Color) -> bool {
        self.seats[color as usize].is_some()
    }

    /// The free seat, if the game can still be joined.
    pub fn free_seat(&self) -> Option<Color> {
        if self.ended_ms.is_some() {
            return None;
        }
        Color::ALL.into_iter().find(|&c| !self.seat_taken(c))
    }

    pub fn clock(&self) -> Option<&Clock> {
        self.clock.as_ref()
    }

    /// Both readings at `now`, or the readings frozen at the end.
    pub fn clock_readings(&self, now: Instant) -> Option<[u64; 2]> {
        let clock = self.clock.as_ref()?;
        Some(self.end_clock.unwrap_or_else(|| clock.readings(now)))
    }

    /// How long the side to move has left for its first turn, while that timer runs.
    pub fn first_move_left(&self, now: Instant) -> Option<Duration> {
        let since = self.first_move_since?;
        Some(
            self.first_move_limit
                .saturating_sub(now.saturating_duration_since(since)),
        )
    }

    pub fn draw_offer(&self) -> Option<Color> {
        self.draw_offer
    }

    /// Who berserked, White then Black (arena games).
    pub fn berserk(&self) -> [bool; 2] {
        self.berserk
    }

    pub fn rematch_offered_by(&self) -> Option<Color> {
        self.rematch_offer
    }

    pub fn rematch_id(&self) -> Option<&str> {
        self.rematch.as_deref()
    }

    /// The rematch game's id, when its seats belong to tokens derived from this game's
    /// ([`ids::rematch_token`]), so that a player's new seat can be handed out again.
    pub fn derived_rematch_id(&self) -> Option<&str> {
        self.rematch.as_deref().filter(|_| self.rematch_derived)
    }

    /// The standing rematch offer: who made it and the hash of its rematch token, when the log
    /// recorded one.
    pub fn rematch_offer(&self) -> Option<(Color, Option<&str>)> {
        self.rematch_offer
            .map(|by| (by, self.rematch_offer_seat.as_deref()))
    }

    /// The version of an already accepted sub-move with this ack id from `color` (among the
    /// last [`ACK_WINDOW`]).
    pub fn acked(&self, color: Color, ack: &str) -> Option<u64> {
        self.acks.find(color, ack)
    }

    /// The version of the last event that changed the position.
    pub fn position_version(&self) -> u64 {
        self.position_version
    }

    /// Whether both sides have completed a turn (the abort window is over, clocks run).
    pub fn started(&self) -> bool {
        !policy::abortable(self.turns_completed)
    }

    /// The record with SAN and movers, recomputed by replaying the sub-moves (the state keeps
    /// only the last SAN: see the module comment). O(length); the room calls it once per
    /// version for its cached snapshot.
    pub fn record(&self) -> Vec<RecordEntry> {
        self.game
            .replay()
            .map(|(position, mv)| RecordEntry {
                mv,
                san: position.san(mv),
                color: position.side_to_move(),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ack_ids_are_remembered_for_the_last_window_of_accepted_submoves_per_side() {
        let mut acks = RecentAcks::default();
        for v in 0..(ACK_WINDOW as u64 + 10) {
            acks.push(Color::White, format!("m{v}"), v);
        }
        assert_eq!(acks.find(Color::White, "m9"), None, "outside the window");
        assert_eq!(acks.find(Color::White, "m10"), Some(10));
        let newest = format!("m{}", ACK_WINDOW + 9);
        assert_eq!(
            acks.find(Color::White, &newest),
            Some(ACK_WINDOW as u64 + 9)
        );
        assert_eq!(acks.find(Color::Black, &newest), None, "ids are per side");
    }
}
