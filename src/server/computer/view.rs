//! The game as the computer's driver follows it: built from a `state` message, then kept up
//! to date by the events that follow, exactly as a client does. Every step is checked (a
//! sub-move plays, the position it makes is the one the room announced, no version is
//! skipped); anything else is [`Followed::Lost`], and the driver asks for a fresh `state`.

use std::time::Instant;

use super::think::{ClockReading, FirstMoveReading};
use crate::rules::{Color, Game, Position, Rules};
use crate::server::play::protocol::{ClockView, ServerMsg, StateMsg};
use crate::server::store::GameStatus;

/// Why a `state` could not be followed.
#[derive(Debug, thiserror::Error)]
pub enum ViewError {
    #[error("the shared part does not read: {0}")]
    Shared(String),
    #[error("the start position does not read: {0}")]
    Start(String),
    #[error("the record does not play: {0}")]
    Record(String),
    #[error("the record does not lead to the announced position")]
    Position,
}

/// What one message did to the view.
#[derive(Debug, PartialEq, Eq)]
pub enum Followed {
    /// The next event, applied.
    Applied,
    /// An event already in the view.
    Old,
    /// Not an event of the game (presence, ack, ...): nothing to apply.
    NotAnEvent,
    /// The view can no longer be trusted.
    Lost(String),
}

pub struct View {
    version: u64,
    /// The version of the last event that changed the position (a lower bound after a
    /// `state`, which does not say).
    position_version: u64,
    game: Game,
    status: GameStatus,
    rematched: bool,
    clock: Option<ClockReading>,
    first_move: Option<FirstMoveReading>,
    /// Whether each seat has a connection, indexed by `Color as usize`.
    here: [bool; 2],
}

impl View {
    pub fn from_state(v: u64, state: &StateMsg, now: Instant) -> Result<View, ViewError> {
        let shared = state
            .shared
            .parse()
            .map_err(|e| ViewError::Shared(e.to_string()))?;
        let start = Position::from_fen(&shared.start_fen, Rules::Marseillais)
            .map_err(|e| ViewError::Start(e.to_string()))?;
        let mut game = Game::new(start);
        for entry in &shared.moves {
            game.play(entry.uci)
                .map_err(|e| ViewError::Record(e.to_string()))?;
        }
        if game.position().fen() != shared.fen {
            return Err(ViewError::Position);
        }
        let live = &state.live;
        Ok(View {
            version: v,
            position_version: v,
            game,
            status: shared.status,
            rematched: shared.rematch.is_some(),
            clock: reading(live.clock.as_ref(), now),
            first_move: first_move(live.first_move_ms, now),
            here: [live.seats.white.connected, live.seats.black.connected],
        })
    }

    pub fn version(&self) -> u64 {
        self.version
    }

    pub fn position_version(&self) -> u64 {
        self.position_version
    }

    pub fn game(&self) -> &Game {
        &self.game
    }

    pub fn clock(&self) -> Option<ClockReading> {
        self.clock
    }

    pub fn first_move(&self) -> Option<FirstMoveReading> {
        self.first_move
    }

    pub fn finished(&self) -> bool {
        self.status == GameStatus::Finished
    }

    /// Whether the game has its rematch.
    pub fn rematched(&self) -> bool {
        self.rematched
    }

    /// Whether the person playing against `me` has a connection.
    pub fn person_here(&self, me: Color) -> bool {
        self.here[(!me) as usize]
    }

    /// Whether `me` is to play a sub-move now.
    pub fn to_move(&self, me: Color) -> bool {
        self.status == GameStatus::Playing
            && self.game.outcome().is_none()
            && self.game.position().side_to_move() == me
    }

    /// Takes in the next message of the room.
    pub fn follow(&mut self, msg: &ServerMsg, now: Instant) -> Followed {
        if let ServerMsg::Presence(presence) = msg {
            self.here = [presence.white, presence.black];
            return Followed::NotAnEvent;
        }
        let Some(v) = msg.v() else {
            return Followed::NotAnEvent;
        };
        if v <= self.version {
            return Followed::Old;
        }
        if v != self.version + 1 {
            return Followed::Lost(format!("version {v} after {}", self.version));
        }
        let position = |game: &Game, fen: &str| game.position().fen() == fen;
        match msg {
            ServerMsg::Join { d, .. } => {
                self.status = GameStatus::Playing;
                self.clock = reading(d.clock.as_ref(), now);
                self.first_move = first_move(d.first_move_ms, now);
                self.position_version = v;
            }
            ServerMsg::Move { d, .. } => {
                if let Err(error) = self.game.play(d.uci) {
                    return Followed::Lost(format!("{}: {error}", d.uci));
                }
                if !position(&self.game, &d.fen) {
                    return Followed::Lost(format!("{} led elsewhere", d.uci));
                }
                self.clock = reading(d.clock.as_ref(), now);
                self.first_move = first_move(d.first_move_ms, now);
                self.position_version = v;
            }
            ServerMsg::Takeback { d, .. } => {
                if let Err(error) = self.game.takeback_first_submove() {
                    return Followed::Lost(format!("takeback: {error}"));
                }
                if !position(&self.game, &d.fen) {
                    return Followed::Lost("the takeback led elsewhere".into());
                }
                self.clock = reading(d.clock.as_ref(), now);
                self.first_move = first_move(d.first_move_ms, now);
                self.position_version = v;
            }
            ServerMsg::Rematch { .. } => self.rematched = true,
            ServerMsg::End { .. } => {
                self.status = GameStatus::Finished;
                self.clock = None;
                self.first_move = None;
            }
            _ => {}
        }
        self.version = v;
        Followed::Applied
    }
}

fn reading(clock: Option<&ClockView>, at: Instant) -> Option<ClockReading> {
    clock.map(|c| ClockReading {
        left_ms: [c.white, c.black],
        increment_ms: u64::from(c.increment_secs) * 1000,
        running: c.running.map(Color::from),
        at,
    })
}

fn first_move(left_ms: Option<u64>, at: Instant) -> Option<FirstMoveReading> {
    left_ms.map(|left_ms| FirstMoveReading { left_ms, at })
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::engine::Level;
    use crate::rules::SubMove;
    use crate::server::game::Input;
    use crate::server::game::{
        COMPUTER_SEAT_HASH, Decided, Event, GameState, Request, Variant, now_ms,
    };
    use crate::server::play::project::{self, Presence};
    use crate::server::play::protocol::SharedText;

    /// A game against the computer (Black, level 1), as the room has it.
    fn game() -> GameState {
        let events = [
            Event::Created {
                at_ms: 1,
                variant: Variant::Balanced,
                start: Position::initial(),
                clock: None,
                creator: Color::White,
                seat_hash: "w".into(),
                listed: false,
                rated: false,
                user: None,
                arena: None,
            },
            Event::Joined {
                at_ms: 1,
                color: Color::Black,
                seat_hash: COMPUTER_SEAT_HASH.into(),
                computer: Some(Level::new(1)),
                user: None,
            },
        ];
        GameState::replay(
            "g",
            &events,
            Duration::from_secs(30),
            Instant::now(),
            |_, _, _| {},
        )
        .expect("replays")
    }

    /// The `state` message of `game` and its data.
    fn state_of(game: &GameState) -> (u64, StateMsg) {
        let shared = SharedText::new(&project::shared_state(game, &game.record(), None))
            .expect("serializes");
        let live = project::live_state(game, Presence::default(), None, Instant::now());
        match project::state_msg(game.version(), live, shared) {
            ServerMsg::State { v, d } => (v, d),
            _ => unreachable!("a state message"),
        }
    }

    /// Plays `uci` for the side to move in `game`; the message it publishes.
    fn play(game: &mut GameState, uci: &str) -> ServerMsg {
        let mv: SubMove = uci.parse().expect("uci");
        let mover = game.position().side_to_move();
        let house =
            crate::server::config::Config::new(([127, 0, 0, 1], 0).into(), "unused").house_rules();
        let now = Instant::now();
        let request = Request::Move {
            mv,
            ack: None,
            lag: crate::server::game::Lag::NONE,
        };
        let Ok(Decided::Events(events)) =
            game.decide(Input::seat(mover, request), &house, now, now_ms())
        else {
            panic!("{uci} is decided");
        };
        let mut published = None;
        for checked in events {
            let event = checked.event().clone();
            let v = game.version() + 1;
            game.apply(checked, now);
            published = published.or(project::event(game, &event, v, now));
        }
        published.expect("a move message")
    }

    #[test]
    fn the_view_follows_the_state_and_the_moves_after_it() {
        let mut game = game();
        let (v, state) = state_of(&game);
        let mut view = View::from_state(v, &state, Instant::now()).expect("follows");
        assert!(!view.to_move(Color::Black), "White moves first");
        let msg = play(&mut game, "e2e4");
        assert_eq!(view.follow(&msg, Instant::now()), Followed::Applied);
        assert!(view.to_move(Color::Black));
        assert_eq!(view.position_version(), game.version());
        assert_eq!(view.follow(&msg, Instant::now()), Followed::Old);
    }

    #[test]
    fn a_skipped_version_or_a_position_other_than_announced_loses_the_view() {
        let mut game = game();
        let (v, state) = state_of(&game);
        let mut view = View::from_state(v, &state, Instant::now()).expect("follows");
        play(&mut game, "e2e4");
        let later = play(&mut game, "e7e5");
        assert!(matches!(
            view.follow(&later, Instant::now()),
            Followed::Lost(_)
        ));

        let mut game = self::game();
        let (v, state) = state_of(&game);
        let mut view = View::from_state(v, &state, Instant::now()).expect("follows");
        let ServerMsg::Move { v, mut d } = play(&mut game, "e2e4") else {
            panic!("a move");
        };
        d.fen = Position::initial().fen();
        let forged = ServerMsg::Move { v, d };
        assert!(matches!(
            view.follow(&forged, Instant::now()),
            Followed::Lost(_)
        ));
    }
}
