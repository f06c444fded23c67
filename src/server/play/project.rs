//! Projections: the game state (and the event just applied) as what the outside sees, typed:
//! the [`ServerMsg`] each event publishes, the snapshot (`state` message and
//! `GET /api/games/{id}`), the store's listing row, and the wire form of a refusal. Reads
//! [`GameState`]; never changes it. The room serializes each projection once
//! ([`ServerMsg::to_text`]) and hands the same text to every recipient.

use std::time::{Duration, Instant};

use crate::rules::{Color, SubMove};
use crate::server::game::rated::{self, RatedRefused};
use crate::server::game::{
    After, Checked, ComputerSeat, Event, GameState, RecordEntry, Refused, SeatUser,
};
use crate::server::play::protocol::{
    ArenaGameView, ArenaMark, BerserkMsg, BerserkView, ByMsg, ClockView, ComputerView,
    CorrespondenceView, EndMsg, ErrorCode, GameSnapshot, GameSummary, JoinMsg, LiveState, MoveMsg,
    MoveRecord, OutcomeView, PlayerView, Players, PositionFields, RatingChange, RatingView,
    RatingsMsg, Refusal, RematchMsg, SeatView, Seats, SeatsTaken, ServerMsg, SharedState, Side,
    StateMsg, TakebackMsg,
};
use crate::server::players::rating::Speed;
use crate::server::store::{GameListing, GameStatus, RatedEnd, RatedGame};

/// Who is connected, supplied by the room for snapshots.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Presence {
    pub white: bool,
    pub black: bool,
    pub spectators: usize,
}

/// The public message event `v` publishes, given the state right after it (`None`: event 0,
/// which has none).
pub fn event(state: &GameState, event: &Event, v: u64, now: Instant) -> Option<ServerMsg> {
    Some(match event {
        Event::Created { .. } => return None,
        // The position fields too: the game starts, so `legal` is no longer empty.
        Event::Joined { color, .. } => ServerMsg::Join {
            v,
            d: JoinMsg::new(
                position_fields(state, now),
                (*color).into(),
                players(state.user(Color::White), state.user(Color::Black)),
            ),
        },
        Event::Move { mv, .. } => ServerMsg::Move {
            v,
            d: MoveMsg::new(
                position_fields(state, now),
                *mv,
                state.last_san()?.to_owned(),
                state.last_mover()?.into(),
                state.draw_offer().map(Side::from),
            ),
        },
        Event::Takeback { .. } => ServerMsg::Takeback {
            v,
            d: TakebackMsg::new(position_fields(state, now), state.taken_back()?),
        },
        Event::DrawOffer { by, .. } => ServerMsg::DrawOffer {
            v,
            d: ByMsg { by: (*by).into() },
        },
        Event::DrawDecline { by, .. } => ServerMsg::DrawDecline {
            v,
            d: ByMsg { by: (*by).into() },
        },
        Event::Berserk { by, .. } => ServerMsg::Berserk {
            v,
            d: BerserkMsg {
                by: (*by).into(),
                clock: clock_view(state, now),
            },
        },
        Event::RematchOffer { by, .. } => ServerMsg::RematchOffer {
            v,
            d: ByMsg { by: (*by).into() },
        },
        Event::Rematch { id, .. } => ServerMsg::Rematch {
            v,
            d: RematchMsg { id: id.clone() },
        },
        Event::End { outcome, .. } => ServerMsg::End {
            v,
            d: EndMsg::new(
                state.game().outcome().unwrap_or(*outcome),
                clock_view(state, now),
            ),
        },
    })
}

/// The fields describing the current position for the side to move.
pub fn position_fields(state: &GameState, now: Instant) -> PositionFields {
    let position = state.position();
    PositionFields {
        check: position.is_check(),
        claims: claims(state),
        clock: clock_view(state, now),
        correspondence: correspondence_view(state),
        fen: position.fen(),
        first_move_ms: first_move_ms(state, now),
        legal: legal(state),
        phase: position.phase().into(),
        turn: position.side_to_move().into(),
    }
}

/// The side to move's legal sub-moves while the game is being played (none otherwise).
fn legal(state: &GameState) -> Vec<SubMove> {
    if state.status() != GameStatus::Playing || state.game().outcome().is_some() {
        return Vec::new();
    }
    state.game().legal_submoves().to_vec()
}

fn claims(state: &GameState) -> Vec<crate::server::play::protocol::ClaimName> {
    if state.is_finished() {
        return Vec::new();
    }
    state
        .game()
        .available_claims()
        .into_iter()
        .map(Into::into)
        .collect()
}

pub fn clock_view(state: &GameState, now: Instant) -> Option<ClockView> {
    let (clock, spec, [white, black]) = (
        state.clock()?,
        state.clock_spec?,
        state.clock_readings(now)?,
    );
    Some(ClockView {
        base_secs: spec.base_secs,
        black,
        increment_secs: spec.increment_secs,
        running: clock.running().map(Side::from),
        white,
    })
}

/// A correspondence game's `correspondence` (`None` for every other game, whose bytes are
/// unchanged): the deadline that applies in this process, after the downtime grace.
pub fn correspondence_view(state: &GameState) -> Option<CorrespondenceView> {
    Some(CorrespondenceView {
        days_per_turn: state.days_per_turn()?,
        deadline_ms: state.effective_deadline_ms(),
    })
}

fn first_move_ms(state: &GameState, now: Instant) -> Option<u64> {
    state.first_move_left(now).map(millis)
}

/// A duration in whole milliseconds, saturating.
pub fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// The part of the snapshot that changes only with the version (the record, the position,
/// offers, outcome): the same for every reader, so the room serializes it once per version.
/// `ratings`: a finished rated game's rating changes, as the room read them from the store.
pub fn shared_state(
    state: &GameState,
    record: &[RecordEntry],
    ratings: Option<RatingsMsg>,
) -> SharedState {
    let position = state.position();
    SharedState {
        arena: state.arena.clone().map(|id| {
            let [white, black] = state.berserk();
            ArenaGameView {
                berserk: BerserkView { black, white },
                id,
            }
        }),
        check: position.is_check(),
        claims: claims(state),
        computer: state.computer().map(computer_view),
        draw_offer: state.draw_offer().map(Side::from),
        fen: position.fen(),
        id: state.id.clone(),
        legal: legal(state),
        moves: record
            .iter()
            .map(|e| MoveRecord {
                color: e.color.into(),
                san: e.san.clone(),
                uci: e.mv,
            })
            .collect(),
        outcome: match (state.is_finished(), state.game().outcome()) {
            (true, Some(outcome)) => Some(OutcomeView::from(outcome)),
            _ => None,
        },
        phase: position.phase().into(),
        players: players(state.user(Color::White), state.user(Color::Black)),
        rated: state.rated,
        ratings,
        rematch: state.rematch_id().map(str::to_owned),
        rematch_offer: state.rematch_offered_by().map(Side::from),
        start_fen: state.game().start().fen(),
        status: state.status(),
        turn: position.side_to_move().into(),
        variant: state.variant,
    }
}

/// The signed-in players as the wire shows them: names, and the ratings before the game in a
/// rated one; `None` when neither seat was taken signed in.
pub fn players(white: Option<&SeatUser>, black: Option<&SeatUser>) -> Option<Players> {
    let view = |user: &SeatUser| PlayerView {
        name: user.name.as_str().to_owned(),
        rating: user.rating.map(RatingView::from),
    };
    Players {
        black: black.map(view),
        white: white.map(view),
    }
    .some()
}

/// The rating changes of a rated game as the store recorded them.
pub fn ratings_msg(rated: &RatedGame) -> RatingsMsg {
    RatingsMsg {
        black: RatingChange::new(rated.black_before, rated.black_after),
        white: RatingChange::new(rated.white_before, rated.white_after),
    }
}

/// A computer seat as the wire shows it.
pub fn computer_view(seat: ComputerSeat) -> ComputerView {
    ComputerView {
        color: seat.color.into(),
        level: seat.level.get(),
    }
}

/// The part of the snapshot that depends on the moment and the reader: the clocks, the
/// first-turn timer, who is connected, and `you`.
pub fn live_state(
    state: &GameState,
    presence: Presence,
    you: Option<Color>,
    now: Instant,
) -> LiveState {
    let seat = |color: Color, connected: bool| SeatView {
        connected,
        taken: state.seat_taken(color),
    };
    LiveState {
        clock: clock_view(state, now),
        correspondence: correspondence_view(state),
        first_move_ms: first_move_ms(state, now),
        seats: Seats {
            black: seat(Color::Black, presence.black),
            white: seat(Color::White, presence.white),
        },
        spectators: presence.spectators,
        you: you.map(Side::from),
    }
}

/// The `state` message for one reader, from the shared part already serialized.
pub fn state_msg(
    version: u64,
    live: LiveState,
    shared: crate::server::play::protocol::SharedText,
) -> ServerMsg {
    ServerMsg::State {
        v: version,
        d: StateMsg { live, shared },
    }
}

/// The public state for HTTP `GET /api/games/{id}`.
pub fn snapshot(
    state: &GameState,
    presence: Presence,
    ratings: Option<RatingsMsg>,
    now: Instant,
) -> GameSnapshot {
    GameSnapshot::new(
        live_state(state, presence, None, now),
        shared_state(state, &state.record(), ratings),
    )
}

/// The store's listing row (its summary is what `GET /api/games` returns).
pub fn listing(state: &GameState) -> GameListing {
    listing_after(state, &[])
}

/// The listing row the game will have once `pending` (decided, not yet applied) events are
/// applied: committed with them, before they are applied (a failed commit applies nothing).
pub fn listing_after(state: &GameState, pending: &[Checked]) -> GameListing {
    listing_of(state, &state.after(pending))
}

/// The listing row of `state` as it will be `after` some events ([`GameState::after`]).
pub fn listing_of(state: &GameState, after: &After<'_>) -> GameListing {
    let [white, black] = after.users;
    let seats = SeatsTaken {
        white: after.seats[Color::White as usize],
        black: after.seats[Color::Black as usize],
    };
    // A correspondence game being played lists whose turn it is and until when.
    let (turn, deadline_ms) = match after.effective_deadline_ms {
        Some(deadline) => (Some(Side::from(after.turn)), Some(deadline)),
        None => (None, None),
    };
    let summary = GameSummary {
        arena: state.arena.clone().map(|id| ArenaMark {
            id,
            turns: after.turns_completed.div_ceil(2),
            berserk: after.berserk,
        }),
        clock: state.time_control(),
        computer: after.computer.map(computer_view),
        created_ms: state.created_ms,
        deadline_ms,
        id: state.id.clone(),
        players: players(white, black),
        rated: state.rated,
        reason: after.outcome.map(|o| o.reason().into()),
        result: after.outcome.map(Into::into),
        seats,
        status: after.status,
        sub_moves: after.sub_moves,
        turn,
        updated_ms: after.updated_ms,
        variant: state.variant,
    };
    GameListing {
        id: state.id.clone(),
        status: after.status,
        created_ms: state.created_ms,
        updated_ms: after.updated_ms,
        // A plain record of strings and numbers: serializing cannot fail.
        summary: serde_json::to_string(&summary).unwrap_or_default(),
        listed: state.listed,
        white_user: white.map(|u| u.id),
        black_user: black.map(|u| u.id),
        arena: state.arena.clone(),
    }
}

/// What the store rates with the commit of `pending` (decided, not yet applied) events: set
/// only when they end a rated game, and not by an abort (aborted games are not rated). The
/// store rates it in that commit's transaction, once per game.
pub fn rated_end(state: &GameState, pending: &[Checked]) -> Option<RatedEnd> {
    rated_end_of(state, &state.after(pending))
}

/// What the store rates with a commit that leaves `state` as it is `after` it.
pub fn rated_end_of(state: &GameState, after: &After<'_>) -> Option<RatedEnd> {
    let outcome = after.outcome.filter(|_| state.rated && after.ends_now)?;
    if !rated::counts(outcome) {
        return None;
    }
    Some(RatedEnd {
        white: state.user(Color::White)?.id,
        black: state.user(Color::Black)?.id,
        speed: Speed::of(state.time_control()?),
        score_white: rated::white_score(outcome),
    })
}

/// The wire form of a refused rated game or seat ([`rated::may_create`],
/// [`rated::joins_as_account`]).
pub fn rated_refusal(refused: RatedRefused) -> Refusal {
    let code = match refused {
        RatedRefused::SignInToCreate | RatedRefused::SignInToJoin => ErrorCode::NotLoggedIn,
        RatedRefused::NeedsClock => ErrorCode::RatedNeedsClock,
        RatedRefused::NotAgainstComputer => ErrorCode::BadRequest,
        RatedRefused::SamePlayer => ErrorCode::SamePlayer,
    };
    Refusal::new(code, refused.to_string())
}

/// The wire form of a refused request: its code, and its sentence as the message.
pub fn refusal(refused: &Refused) -> Refusal {
    let code = match refused {
        Refused::GameOver => ErrorCode::GameOver,
        Refused::NotStarted => ErrorCode::GameNotStarted,
        Refused::NotYourTurn => ErrorCode::NotYourTurn,
        Refused::Illegal(_) => ErrorCode::IllegalMove,
        Refused::StalePosition { .. } | Refused::AheadOfGame { .. } => ErrorCode::Stale,
        Refused::SeatsTaken => ErrorCode::SeatTaken,
        Refused::Rated(rated) => return rated_refusal(*rated),
        Refused::Takeback(_)
        | Refused::DrawAlreadyOffered
        | Refused::OneDrawOfferPerTurn
        | Refused::NoDrawOfferToAccept
        | Refused::NoDrawOfferToDecline
        | Refused::NoClaim
        | Refused::AbortWindowOver
        | Refused::NotReallyStarted
        | Refused::OpponentNotAway
        | Refused::NoAbandonmentInCorrespondence
        | Refused::Rematch(_)
        | Refused::Berserk(_)
        | Refused::RematchAlreadyOffered
        | Refused::NoRematchOffer => ErrorCode::NotAvailable,
    };
    Refusal::new(code, refused.to_string())
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::*;
    use crate::rules::{Outcome, Position, Termination};
    use crate::server::game::{ClockSpec, Decided, HouseRules, Input, TimeControl, Variant};
    use crate::server::players::account::{UserId, Username};

    /// The server's default rules.
    fn house_rules() -> HouseRules {
        let config = crate::server::config::Config::new(([127, 0, 0, 1], 0).into(), "unused");
        config.house_rules()
    }

    fn user(id: i64) -> Option<SeatUser> {
        Some(SeatUser {
            id: UserId(id),
            name: Username::parse(&format!("user{id}")).ok()?,
            rating: None,
        })
    }

    /// A blitz game between users 1 (White) and 2, rated or not.
    fn game(rated: bool) -> GameState {
        let blitz = TimeControl::Live(ClockSpec {
            base_secs: 300,
            increment_secs: 2,
        });
        game_with(blitz, rated)
    }

    /// A game between users 1 (White) and 2 with this time control, joined at 5 ms.
    fn game_with(clock: TimeControl, rated: bool) -> GameState {
        let log = [
            Event::Created {
                at_ms: 0,
                variant: Variant::Balanced,
                start: Position::initial(),
                clock: Some(clock),
                creator: Color::White,
                seat_hash: "w".into(),
                listed: true,
                rated,
                user: user(1),
                arena: None,
            },
            Event::Joined {
                at_ms: 5,
                color: Color::Black,
                seat_hash: "b".into(),
                computer: None,
                user: user(2),
            },
        ];
        GameState::replay(
            "g",
            &log,
            Duration::from_secs(30),
            Instant::now(),
            |_, _, _| {},
        )
        .expect("replays")
    }

    fn ending(state: &GameState, outcome: Outcome) -> Option<RatedEnd> {
        rated_end(state, &[state.end(outcome, Instant::now(), 1)])
    }

    #[test]
    fn the_end_of_a_rated_game_is_rated_with_its_score_but_not_an_abort() {
        let state = game(true);
        let win = ending(
            &state,
            Outcome::Win {
                winner: Color::Black,
                reason: Termination::Resignation,
            },
        )
        .expect("rated");
        assert_eq!((win.white, win.black), (UserId(1), UserId(2)));
        assert_eq!(win.speed, Speed::Blitz);
        assert_eq!(win.score_white, 0.0);
        let draw = ending(
            &state,
            Outcome::Draw {
                reason: Termination::Agreement,
            },
        );
        assert_eq!(draw.map(|d| d.score_white), Some(0.5));
        let aborted = ending(
            &state,
            Outcome::Draw {
                reason: Termination::Aborted,
            },
        );
        assert!(aborted.is_none(), "an aborted game is not rated");
        assert!(rated_end(&state, &[]).is_none(), "no end, no rating");
    }

    #[test]
    fn an_unrated_game_is_never_rated_and_lists_its_users() {
        let state = game(false);
        let end = Outcome::Win {
            winner: Color::White,
            reason: Termination::Resignation,
        };
        assert!(ending(&state, end).is_none());
        let row = listing(&state);
        assert_eq!(
            (row.white_user, row.black_user),
            (Some(UserId(1)), Some(UserId(2)))
        );
        assert!(
            row.summary
                .contains(r#""players":{"black":{"name":"user2"},"white":{"name":"user1"}}"#),
            "{}",
            row.summary
        );
    }

    fn two_days() -> TimeControl {
        TimeControl::from(crate::server::game::DaysPerTurn::try_from(2).expect("allowed"))
    }

    #[test]
    fn a_rated_correspondence_game_is_rated_as_correspondence() {
        let state = game_with(two_days(), true);
        let resigned = Outcome::Win {
            winner: Color::White,
            reason: Termination::Resignation,
        };
        let rated = ending(&state, resigned).expect("rated");
        assert_eq!(rated.speed, Speed::Correspondence);
    }

    #[test]
    fn a_correspondence_listing_says_whose_turn_and_until_when_after_the_pending_events() {
        const DAY: i64 = 86_400_000;
        let state = game_with(two_days(), false);
        let row = listing(&state);
        let summary: GameSummary = serde_json::from_str(&row.summary).expect("a summary");
        assert_eq!(summary.clock, Some(two_days()));
        assert_eq!(summary.turn, Some(Side::White));
        assert_eq!(summary.deadline_ms, Some(5 + 2 * DAY), "from the join");
        // White's one-sub-move first turn, committed at 1000 ms: Black's turn, two days on.
        let Ok(Decided::Events(pending)) = state.decide(
            Input::seat(
                Color::White,
                crate::server::game::Request::Move {
                    mv: "e2e4".parse().expect("uci"),
                    ack: None,
                    lag: crate::server::game::Lag::NONE,
                },
            ),
            &house_rules(),
            Instant::now(),
            1_000,
        ) else {
            panic!("e2e4 is legal");
        };
        let row = listing_after(&state, &pending);
        let summary: GameSummary = serde_json::from_str(&row.summary).expect("a summary");
        assert_eq!(summary.turn, Some(Side::Black));
        assert_eq!(summary.deadline_ms, Some(1_000 + 2 * DAY));
        // Once it ends, no turn is timed.
        let end = [state.end(crate::server::game::policy::aborted(), Instant::now(), 9)];
        let summary: GameSummary =
            serde_json::from_str(&listing_after(&state, &end).summary).expect("a summary");
        assert_eq!((summary.turn, summary.deadline_ms), (None, None));
        assert_eq!(summary.clock, Some(two_days()));
    }

    #[test]
    fn a_live_listing_has_no_turn_nor_deadline() {
        let row = listing(&game(false));
        assert!(!row.summary.contains("turn"), "{}", row.summary);
        assert!(!row.summary.contains("deadline_ms"), "{}", row.summary);
        assert!(
            row.summary
                .contains(r#""clock":{"base_secs":300,"increment_secs":2}"#),
            "{}",
            row.summary
        );
    }
}
