//! The fold and the decisions together, driven by made-up instants: what a game does as its
//! events are decided and applied, and what a replay of its log gives back.

use std::time::{Duration, Instant};

use super::*;
use crate::rules::{Color, Outcome, Position, Rules, Termination};
use crate::server::game::expiry::Expiry;
use crate::server::game::policy::{BerserkRefused, TakebackLimits};
use crate::server::game::rated::RatedRefused;
use crate::server::ids;

mod berserk;

const LIMITS: TakebackLimits = TakebackLimits {
    per_turn: 1,
    per_game: 5,
};

/// The server's defaults: an open game expires after an hour (three days for
/// correspondence), an untimed game being played after a day without events.
const HOUSE: HouseRules = HouseRules {
    takebacks: LIMITS,
    expiry: Expiry {
        open: Duration::from_secs(3_600),
        open_correspondence: Duration::from_secs(3 * 86_400),
        idle_untimed: Duration::from_secs(86_400),
        unplayed_computer: Duration::from_secs(600),
    },
};

/// [`Input::Join`] of the seat token "b" by `user` at `at_ms`, through the one entrance: the
/// one event it decides.
fn join(state: &GameState, user: Option<SeatUser>, at_ms: i64) -> Result<Checked, Refused> {
    let input = Input::Join {
        seat_hash: ids::token_hash("b"),
        user,
    };
    match state.decide(input, &HOUSE, Instant::now(), at_ms)? {
        Decided::Events(mut events) if events.len() == 1 => Ok(events.remove(0)),
        other => panic!("a join decides one event, not {other:?}"),
    }
}

/// [`Input::Tick`] at `now` (`at_ms` on the wall clock): the ending time imposes, if any.
fn tick(state: &GameState, now: Instant, at_ms: i64) -> Option<Checked> {
    match state.decide(Input::Tick, &HOUSE, now, at_ms) {
        Ok(Decided::Events(mut events)) if events.len() == 1 => Some(events.remove(0)),
        Ok(Decided::Nothing) => None,
        other => panic!("time passing decides one ending or nothing, not {other:?}"),
    }
}

fn created(start: Position, clock: Option<ClockSpec>) -> Event {
    Event::Created {
        at_ms: 1,
        variant: Variant::Balanced,
        start,
        clock: clock.map(TimeControl::Live),
        creator: Color::White,
        seat_hash: ids::token_hash("w"),
        listed: true,
        rated: false,
        user: None,
        arena: None,
    }
}

fn joined() -> Event {
    Event::Joined {
        at_ms: 2,
        color: Color::Black,
        seat_hash: ids::token_hash("b"),
        computer: None,
        user: None,
    }
}

/// Black to play S2 of its turn, where Qh4 mates (the fool's mate shape).
const QH4_MATES: &str = "rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq - 0 2 2";

const ONE_MINUTE_PLUS_TWO: ClockSpec = ClockSpec {
    base_secs: 60,
    increment_secs: 2,
};

/// A game with both seats taken, and its log.
fn new_game(start: Position, clock: Option<ClockSpec>, now: Instant) -> (GameState, Vec<Event>) {
    let log = vec![created(start, clock), joined()];
    let state =
        GameState::replay("g", &log, Duration::from_secs(30), now, |_, _, _| {}).expect("replays");
    (state, log)
}

/// Decides `request` and applies what it decided (its events, or the loss on time of a
/// sub-move too late), appending it to `log`.
fn act(
    state: &mut GameState,
    log: &mut Vec<Event>,
    color: Color,
    request: Request,
    now: Instant,
) -> Vec<Event> {
    let events = match state
        .decide(Input::seat(color, request), &HOUSE, now, 3)
        .unwrap_or_else(|e| panic!("refused: {e}"))
    {
        Decided::Events(events) => events,
        Decided::LostOnTime(end) => vec![*end],
        other => panic!("not events: {other:?}"),
    };
    let mut applied = Vec::new();
    for checked in events {
        applied.push(checked.event().clone());
        log.push(checked.event().clone());
        state.apply(checked, now);
    }
    applied
}

fn play(state: &mut GameState, log: &mut Vec<Event>, color: Color, uci: &str, now: Instant) {
    let mv = uci.parse().expect("uci");
    act(
        state,
        log,
        color,
        Request::Move {
            mv,
            ack: Some(uci.into()),
            lag: crate::server::game::Lag::NONE,
        },
        now,
    );
}

#[test]
fn replaying_a_log_rebuilds_the_same_game_and_acks() {
    let t0 = Instant::now();
    let (mut live, mut log) = new_game(Position::initial(), Some(ONE_MINUTE_PLUS_TWO), t0);
    play(&mut live, &mut log, Color::White, "e2e4", t0);
    play(&mut live, &mut log, Color::Black, "e7e5", t0);
    play(&mut live, &mut log, Color::Black, "g8f6", t0);
    let replayed =
        GameState::replay("g", &log, Duration::from_secs(30), t0, |_, _, _| {}).expect("replays");
    assert_eq!(replayed.version(), live.version());
    assert_eq!(replayed.game().submoves(), live.game().submoves());
    assert_eq!(replayed.record(), live.record());
    assert_eq!(replayed.acked(Color::Black, "g8f6"), Some(4));
    assert_eq!(replayed.acked(Color::White, "g8f6"), None);
    assert_eq!(replayed.last_san(), Some("Nf6"));
}

#[test]
fn a_replayed_state_given_back_its_live_parts_keeps_the_running_clock() {
    let t0 = Instant::now();
    let (mut state, mut log) = new_game(Position::initial(), Some(ONE_MINUTE_PLUS_TWO), t0);
    play(&mut state, &mut log, Color::White, "e2e4", t0);
    play(&mut state, &mut log, Color::Black, "e7e5", t0);
    play(&mut state, &mut log, Color::Black, "g8f6", t0);
    let live = state.live_parts();
    let later = t0 + Duration::from_secs(10);
    let mut replayed = GameState::replay("g", &log, Duration::from_secs(30), later, |_, _, _| {})
        .expect("replays");
    // Replaying restarts White's running clock at `later`...
    assert_ne!(replayed.next_deadline(later, 0), state.next_deadline(t0, 0));
    replayed.restore_live_parts(live);
    // ...the live parts put it back where it was.
    assert_eq!(replayed.next_deadline(later, 0), state.next_deadline(t0, 0));
}

#[test]
fn a_draw_offer_lapses_when_the_opponent_completes_a_turn() {
    let t0 = Instant::now();
    let (mut state, mut log) = new_game(Position::initial(), None, t0);
    act(&mut state, &mut log, Color::White, Request::DrawOffer, t0);
    play(&mut state, &mut log, Color::White, "e2e4", t0);
    assert!(
        state
            .decide(
                Input::seat(Color::Black, Request::DrawAccept),
                &HOUSE,
                t0,
                3
            )
            .is_ok()
    );
    play(&mut state, &mut log, Color::Black, "e7e5", t0);
    assert!(
        state
            .decide(
                Input::seat(Color::Black, Request::DrawAccept),
                &HOUSE,
                t0,
                3
            )
            .is_ok()
    );
    play(&mut state, &mut log, Color::Black, "g8f6", t0);
    assert_eq!(
        state.decide(
            Input::seat(Color::Black, Request::DrawAccept),
            &HOUSE,
            t0,
            3
        ),
        Err(Refused::NoDrawOfferToAccept)
    );
}

#[test]
fn clocks_start_after_both_first_turns_and_abort_is_over_then() {
    let t0 = Instant::now();
    let (mut state, mut log) = new_game(Position::initial(), Some(ONE_MINUTE_PLUS_TWO), t0);
    assert!(state.next_deadline(t0, 0).is_some(), "first-turn deadline");
    play(&mut state, &mut log, Color::White, "e2e4", t0);
    play(&mut state, &mut log, Color::Black, "e7e5", t0);
    assert!(
        state
            .decide(Input::seat(Color::Black, Request::Abort), &HOUSE, t0, 3)
            .is_ok()
    );
    play(&mut state, &mut log, Color::Black, "g8f6", t0);
    assert_eq!(
        state.decide(Input::seat(Color::White, Request::Abort), &HOUSE, t0, 3),
        Err(Refused::AbortWindowOver)
    );
    let flag = state.next_deadline(t0, 0).expect("White's flag time");
    assert_eq!(flag, t0 + Duration::from_secs(60));
    let later = t0 + Duration::from_secs(61);
    let Some(Event::End { outcome, .. }) = tick(&state, later, 4).map(|c| c.event().clone()) else {
        panic!("White's flag has fallen");
    };
    assert_eq!(
        outcome,
        Outcome::Win {
            winner: Color::Black,
            reason: Termination::TimeForfeit
        }
    );
}

#[test]
fn a_mating_submove_decides_the_move_and_the_end_together() {
    let t0 = Instant::now();
    let start = Position::from_fen(QH4_MATES, Rules::Marseillais).expect("fen");
    let (mut state, mut log) = new_game(start, None, t0);
    let events = act(
        &mut state,
        &mut log,
        Color::Black,
        Request::Move {
            mv: "d8h4".parse().expect("uci"),
            ack: None,
            lag: crate::server::game::Lag::NONE,
        },
        t0,
    );
    assert!(matches!(events[0], Event::Move { .. }));
    assert_eq!(
        events.get(1),
        Some(&Event::End {
            at_ms: 3,
            outcome: Outcome::Win {
                winner: Color::Black,
                reason: Termination::Checkmate
            },
            clock: None,
        })
    );
    assert!(state.is_finished());
    assert_eq!(state.last_san(), Some("Qh4#"));
}

#[test]
fn a_game_ending_submove_charges_the_clock_without_the_increment() {
    let t0 = Instant::now();
    let (mut state, mut log) = new_game(Position::initial(), Some(ONE_MINUTE_PLUS_TWO), t0);
    // Both sides complete a turn (the clocks start), then White's second turn.
    play(&mut state, &mut log, Color::White, "f2f3", t0);
    play(&mut state, &mut log, Color::Black, "e7e5", t0);
    play(&mut state, &mut log, Color::Black, "a7a6", t0);
    play(&mut state, &mut log, Color::White, "g2g4", t0);
    play(&mut state, &mut log, Color::White, "a2a3", t0);
    let before = state.clock_readings(t0).expect("clocked");
    assert_eq!(state.clock().and_then(|c| c.running()), Some(Color::Black));
    // Black mates with its first sub-move five seconds later.
    let events = act(
        &mut state,
        &mut log,
        Color::Black,
        Request::Move {
            mv: "d8h4".parse().expect("uci"),
            ack: None,
            lag: crate::server::game::Lag::NONE,
        },
        t0 + Duration::from_secs(5),
    );
    let Event::Move {
        clock: Some(after), ..
    } = events[0]
    else {
        panic!("a clocked move");
    };
    assert_eq!(after[0], before[0]);
    assert_eq!(after[1], before[1] - 5_000, "charged 5 s, no increment");
    assert!(matches!(
        &events[1],
        Event::End { clock: Some(end), outcome: Outcome::Win { reason: Termination::Checkmate, .. }, .. } if *end == after
    ));
}

#[test]
fn a_replay_refuses_a_log_that_no_game_could_have_written() {
    let t0 = Instant::now();
    let illegal = vec![
        created(Position::initial(), None),
        joined(),
        Event::Move {
            at_ms: 3,
            mv: "e2e5".parse().expect("uci"),
            ack: None,
            clock: None,
        },
    ];
    assert!(matches!(
        GameState::replay("g", &illegal, Duration::from_secs(30), t0, |_, _, _| {}),
        Err(ReplayError::Inconsistent { index: 2, .. })
    ));
    let second_join = vec![created(Position::initial(), None), joined(), joined()];
    assert!(
        GameState::replay("g", &second_join, Duration::from_secs(30), t0, |_, _, _| {}).is_err()
    );
    let checkmate_declared = vec![
        created(Position::initial(), None),
        joined(),
        Event::End {
            at_ms: 3,
            outcome: Outcome::Win {
                winner: Color::White,
                reason: Termination::Checkmate,
            },
            clock: None,
        },
    ];
    assert!(
        GameState::replay(
            "g",
            &checkmate_declared,
            Duration::from_secs(30),
            t0,
            |_, _, _| {}
        )
        .is_err()
    );
    assert_eq!(
        GameState::replay("g", &[joined()], Duration::from_secs(30), t0, |_, _, _| {}).err(),
        Some(ReplayError::NotCreated)
    );
}

#[test]
fn an_aborted_game_cannot_be_rematched_but_a_resigned_one_can() {
    let t0 = Instant::now();
    let (mut aborted, mut log) = new_game(Position::initial(), None, t0);
    act(&mut aborted, &mut log, Color::White, Request::Abort, t0);
    assert_eq!(
        aborted.decide(
            Input::seat(
                Color::White,
                Request::RematchOffer {
                    seat_hash: "r".into()
                }
            ),
            &HOUSE,
            t0,
            3
        ),
        Err(Refused::Rematch(policy::RematchRefused::Aborted))
    );
    let (mut resigned, mut log) = new_game(Position::initial(), None, t0);
    act(&mut resigned, &mut log, Color::White, Request::Resign, t0);
    assert!(matches!(
        resigned.decide(
            Input::seat(
                Color::White,
                Request::RematchOffer {
                    seat_hash: "r".into()
                }
            ),
            &HOUSE,
            t0,
            3
        ),
        Ok(Decided::Events(_))
    ));
}

fn seat_user(id: i64, name: &str) -> SeatUser {
    SeatUser {
        id: crate::server::domain::user::UserId(id),
        name: crate::server::domain::user::Username::parse(name).expect("a username"),
        rating: None,
    }
}

/// An open game created by user 1, rated or not.
fn open_game_of_user_one(rated: bool) -> GameState {
    let Event::Created {
        at_ms,
        variant,
        start,
        creator,
        seat_hash,
        listed,
        ..
    } = created(Position::initial(), Some(ONE_MINUTE_PLUS_TWO))
    else {
        unreachable!("created() makes a created event");
    };
    let log = [Event::Created {
        at_ms,
        variant,
        start,
        clock: Some(TimeControl::Live(ONE_MINUTE_PLUS_TWO)),
        creator,
        seat_hash,
        listed,
        rated,
        user: Some(seat_user(1, "alice")),
        arena: None,
    }];
    GameState::replay(
        "g",
        &log,
        Duration::from_secs(30),
        Instant::now(),
        |_, _, _| {},
    )
    .expect("replays")
}

#[test]
fn a_seat_taken_signed_in_belongs_to_its_account_and_no_other() {
    let mut state = open_game_of_user_one(false);
    let join = join(&state, Some(seat_user(2, "bob")), 2).expect("joins");
    state.apply(join, Instant::now());
    let user = |id| crate::server::domain::user::UserId(id);
    assert_eq!(state.seat_of_user(user(1)), Some(Color::White));
    assert_eq!(state.seat_of_user(user(2)), Some(Color::Black));
    assert_eq!(state.seat_of_user(user(3)), None);
    assert_eq!(
        state.user(Color::Black).map(|u| u.name.as_str()),
        Some("bob")
    );
}

#[test]
fn joining_ones_own_unrated_game_gives_the_seat_to_the_token_only() {
    let mut state = open_game_of_user_one(false);
    let join = join(&state, Some(seat_user(1, "alice")), 2).expect("joins");
    state.apply(join, Instant::now());
    assert_eq!(state.user(Color::Black), None);
    assert_eq!(
        state.seat_of_user(crate::server::domain::user::UserId(1)),
        Some(Color::White)
    );
    assert_eq!(state.seat_of("b"), Some(Color::Black));
}

#[test]
fn a_rated_game_is_joined_only_signed_in_and_by_another_account() {
    let state = open_game_of_user_one(true);
    assert_eq!(
        join(&state, None, 2),
        Err(Refused::Rated(RatedRefused::SignInToJoin))
    );
    assert_eq!(
        join(&state, Some(seat_user(1, "ALICE")), 2),
        Err(Refused::Rated(RatedRefused::SamePlayer))
    );
    assert!(join(&state, Some(seat_user(2, "bob")), 2).is_ok());
}

// --- correspondence (issue 12) ---

const DAY_MS: i64 = 86_400_000;

fn three_days() -> DaysPerTurn {
    DaysPerTurn::try_from(3).expect("allowed")
}

/// A correspondence game of three days per turn, created at 1 ms, joined at 2 ms.
fn correspondence_game(now: Instant) -> (GameState, Vec<Event>) {
    let mut log = vec![created(Position::initial(), None), joined()];
    if let Event::Created { clock, .. } = &mut log[0] {
        *clock = Some(TimeControl::from(three_days()));
    }
    let state =
        GameState::replay("g", &log, Duration::from_secs(30), now, |_, _, _| {}).expect("replays");
    (state, log)
}

/// [`act`] at the wall-clock time `at_ms`.
fn act_at(
    state: &mut GameState,
    log: &mut Vec<Event>,
    color: Color,
    request: Request,
    now: Instant,
    at_ms: i64,
) {
    let Decided::Events(events) = state
        .decide(Input::seat(color, request), &HOUSE, now, at_ms)
        .unwrap_or_else(|e| panic!("refused: {e}"))
    else {
        panic!("not events");
    };
    for checked in events {
        log.push(checked.event().clone());
        state.apply(checked, now);
    }
}

fn play_at(state: &mut GameState, log: &mut Vec<Event>, color: Color, uci: &str, at_ms: i64) {
    let mv = uci.parse().expect("uci");
    let request = Request::Move {
        mv,
        ack: None,
        lag: crate::server::game::Lag::NONE,
    };
    act_at(state, log, color, request, Instant::now(), at_ms);
}

#[test]
fn a_correspondence_deadline_is_counted_from_the_event_that_began_the_turn() {
    let t0 = Instant::now();
    let (mut state, mut log) = correspondence_game(t0);
    assert_eq!(state.time_control(), Some(TimeControl::from(three_days())));
    assert_eq!(state.clock_spec, None, "no live clock");
    assert_eq!(
        state.turn_deadline_ms(),
        Some(2 + 3 * DAY_MS),
        "from the join"
    );
    // White's first turn is one sub-move: Black's turn begins with it.
    play_at(&mut state, &mut log, Color::White, "e2e4", 1_000);
    assert_eq!(state.turn_deadline_ms(), Some(1_000 + 3 * DAY_MS));
    // Black's S1 does not end its turn, nor does taking it back: the deadline stays.
    play_at(&mut state, &mut log, Color::Black, "e7e5", 2 * DAY_MS);
    assert_eq!(state.turn_deadline_ms(), Some(1_000 + 3 * DAY_MS));
    act_at(
        &mut state,
        &mut log,
        Color::Black,
        Request::Takeback,
        t0,
        2 * DAY_MS + 10,
    );
    assert_eq!(state.turn_deadline_ms(), Some(1_000 + 3 * DAY_MS));
    play_at(&mut state, &mut log, Color::Black, "e7e5", 2 * DAY_MS + 20);
    play_at(&mut state, &mut log, Color::Black, "g8f6", 2 * DAY_MS + 30);
    // White's turn: three whole days from Black's last sub-move, nothing saved carried over.
    assert_eq!(state.turn_deadline_ms(), Some(2 * DAY_MS + 30 + 3 * DAY_MS));
    // A replay of the log finds the same deadline (it is in the log, not in this process).
    let replayed =
        GameState::replay("g", &log, Duration::from_secs(30), t0, |_, _, _| {}).expect("replays");
    assert_eq!(replayed.turn_deadline_ms(), state.turn_deadline_ms());
    act_at(
        &mut state,
        &mut log,
        Color::White,
        Request::Resign,
        t0,
        3 * DAY_MS,
    );
    assert_eq!(state.turn_deadline_ms(), None, "finished");
}

#[test]
fn an_open_or_live_game_has_no_turn_deadline() {
    let t0 = Instant::now();
    let (live, _) = new_game(Position::initial(), Some(ONE_MINUTE_PLUS_TWO), t0);
    assert_eq!(live.turn_deadline_ms(), None);
    let (untimed, _) = new_game(Position::initial(), None, t0);
    assert_eq!(untimed.turn_deadline_ms(), None);
    let mut created = created(Position::initial(), None);
    if let Event::Created { clock, .. } = &mut created {
        *clock = Some(TimeControl::from(three_days()));
    }
    let open = GameState::replay("g", &[created], Duration::from_secs(30), t0, |_, _, _| {})
        .expect("replays");
    assert_eq!(open.turn_deadline_ms(), None, "nobody to move yet");
}

#[test]
fn a_correspondence_game_has_no_first_move_timer() {
    let t0 = Instant::now();
    let (state, _) = correspondence_game(t0);
    assert_eq!(state.first_move_left(t0), None);
    // Long past the 30 s first-move limit, but well within the turn: nothing ends.
    let later = t0 + Duration::from_secs(3600);
    assert_eq!(tick(&state, later, 3_600_000), None);
    // The room's wake-up is the turn's deadline, on the wall clock.
    assert_eq!(
        state.next_deadline(t0, 2 + 3 * DAY_MS - 5_000),
        Some(t0 + Duration::from_secs(5))
    );
    assert_eq!(
        state.next_deadline(t0, 4 * DAY_MS),
        Some(t0),
        "overdue: at once"
    );
}

#[test]
fn a_correspondence_turn_past_its_deadline_loses_on_time() {
    let t0 = Instant::now();
    let (mut state, mut log) = correspondence_game(t0);
    play_at(&mut state, &mut log, Color::White, "e2e4", 1_000);
    let deadline = 1_000 + 3 * DAY_MS;
    assert_eq!(tick(&state, t0, deadline - 1), None);
    let Some(Event::End { outcome, clock, .. }) =
        tick(&state, t0, deadline).map(|c| c.event().clone())
    else {
        panic!("Black's turn ran out");
    };
    assert_eq!(
        outcome,
        Outcome::Win {
            winner: Color::White,
            reason: Termination::TimeForfeit
        }
    );
    assert_eq!(clock, None, "no clock readings");
}

#[test]
fn an_overdue_correspondence_deadline_waits_the_grace_after_boot() {
    let t0 = Instant::now();
    let (mut state, _) = correspondence_game(t0);
    let deadline = 2 + 3 * DAY_MS;
    let boot = deadline + DAY_MS;
    state.set_downtime(policy::Downtime {
        boot_ms: boot,
        grace: Duration::from_secs(3600),
    });
    assert_eq!(
        state.turn_deadline_ms(),
        Some(deadline),
        "the log's deadline"
    );
    assert_eq!(state.effective_deadline_ms(), Some(boot + 3_600_000));
    assert_eq!(tick(&state, t0, boot), None, "not flagged at boot");
    assert!(tick(&state, t0, boot + 3_600_000).is_some());
}

#[test]
fn a_correspondence_game_is_not_won_by_abandonment() {
    let t0 = Instant::now();
    let (mut state, mut log) = correspondence_game(t0);
    play_at(&mut state, &mut log, Color::White, "e2e4", 1_000);
    play_at(&mut state, &mut log, Color::Black, "e7e5", 2_000);
    play_at(&mut state, &mut log, Color::Black, "g8f6", 3_000);
    assert_eq!(
        state.decide(
            Input::seat(
                Color::Black,
                Request::ClaimVictory {
                    opponent_away: true
                }
            ),
            &HOUSE,
            t0,
            4_000
        ),
        Err(Refused::NoAbandonmentInCorrespondence)
    );
}

/// A lag the server measured steadily: `ms` for the average and the latest sample.
fn steady_lag(ms: u64) -> Lag {
    Lag {
        smoothed: Duration::from_millis(ms),
        latest: Duration::from_millis(ms),
        claimed: None,
    }
}

fn play_lagged(
    state: &mut GameState,
    log: &mut Vec<Event>,
    color: Color,
    uci: &str,
    lag: Lag,
    now: Instant,
) -> Vec<Event> {
    let request = Request::Move {
        mv: uci.parse().expect("uci"),
        ack: None,
        lag,
    };
    act(state, log, color, request, now)
}

fn white_ms(events: &[Event]) -> u64 {
    match events.first() {
        Some(Event::Move {
            clock: Some(clock), ..
        })
        | Some(Event::End {
            clock: Some(clock), ..
        }) => clock[Color::White as usize],
        other => panic!("no readings in {other:?}"),
    }
}

#[test]
fn each_submove_is_credited_its_lag_and_the_increment_still_comes_once_per_turn() {
    let t0 = Instant::now();
    let (mut state, mut log) = new_game(Position::initial(), Some(ONE_MINUTE_PLUS_TWO), t0);
    state.set_lag_compensation(true);
    let s = Duration::from_secs;
    play(&mut state, &mut log, Color::White, "e2e4", t0);
    play(&mut state, &mut log, Color::Black, "e7e5", t0);
    play(&mut state, &mut log, Color::Black, "g8f6", t0);
    // White's clock runs from t0: 3 s per sub-move, 200 ms of each the link's.
    let lag = steady_lag(200);
    let s1 = play_lagged(&mut state, &mut log, Color::White, "d2d4", lag, t0 + s(3));
    assert_eq!(white_ms(&s1), 60_000 - 3_000 + 200);
    let s2 = play_lagged(&mut state, &mut log, Color::White, "b1c3", lag, t0 + s(6));
    // Two credits of 200 ms, one increment of 2 s.
    assert_eq!(white_ms(&s2), 60_000 - 6_000 + 400 + 2_000);
    assert_eq!(state.clock().and_then(|c| c.running()), Some(Color::Black));
    // The quota: 3 gains (60 + 40 x 2 = 140 s estimated: a gain of 4 x 140 + 150 = 710 ms),
    // less what was given, plus a gain per sub-move.
    assert_eq!(
        state.lag_tracker(Color::White).quota(),
        Duration::from_millis(3 * 710 - 200 + 710 - 200 + 710)
    );
    // A replay of the same log gives the readings back, compensation and all.
    let replayed =
        GameState::replay("g", &log, Duration::from_secs(30), t0, |_, _, _| {}).expect("replays");
    assert_eq!(replayed.clock_readings(t0), state.clock_readings(t0 + s(6)));
}

#[test]
fn without_compensation_a_lagged_submove_is_charged_in_full() {
    let t0 = Instant::now();
    let (mut state, mut log) = new_game(Position::initial(), Some(ONE_MINUTE_PLUS_TWO), t0);
    play(&mut state, &mut log, Color::White, "e2e4", t0);
    play(&mut state, &mut log, Color::Black, "e7e5", t0);
    play(&mut state, &mut log, Color::Black, "g8f6", t0);
    let events = play_lagged(
        &mut state,
        &mut log,
        Color::White,
        "d2d4",
        steady_lag(200),
        t0 + Duration::from_secs(3),
    );
    assert_eq!(white_ms(&events), 57_000);
}

#[test]
fn the_flag_falls_after_the_grace_and_a_submove_in_it_is_played_or_loses_on_time() {
    let t0 = Instant::now();
    let one_plus_zero = ClockSpec {
        base_secs: 1,
        increment_secs: 0,
    };
    let (mut state, mut log) = new_game(Position::initial(), Some(one_plus_zero), t0);
    state.set_lag_compensation(true);
    play(&mut state, &mut log, Color::White, "e2e4", t0);
    play(&mut state, &mut log, Color::Black, "e7e5", t0);
    play(&mut state, &mut log, Color::Black, "g8f6", t0);
    // 1+0: a gain of 154 ms, a quota (and grace) of 462 ms.
    let ms = Duration::from_millis;
    assert_eq!(state.flag_grace(), ms(462));
    assert_eq!(state.next_deadline(t0, 0), Some(t0 + ms(1_462)));
    assert!(tick(&state, t0 + ms(1_461), 4).is_none());
    assert!(tick(&state, t0 + ms(1_462), 4).is_some());
    // In the grace, with 400 ms of lag: played, 200 ms left.
    let mut late = state.clone();
    let mut late_log = log.clone();
    let events = play_lagged(
        &mut late,
        &mut late_log,
        Color::White,
        "d2d4",
        steady_lag(400),
        t0 + ms(1_200),
    );
    assert!(matches!(events[0], Event::Move { .. }), "{events:?}");
    assert_eq!(white_ms(&events), 200);
    // In the grace with too little lag to cover it: lost on time, the sub-move not played.
    let events = play_lagged(
        &mut state,
        &mut log,
        Color::White,
        "d2d4",
        steady_lag(100),
        t0 + ms(1_200),
    );
    assert_eq!(events.len(), 1, "{events:?}");
    let Event::End { outcome, .. } = &events[0] else {
        panic!("not an end: {events:?}");
    };
    assert_eq!(outcome.reason(), Termination::TimeForfeit);
    assert_eq!(white_ms(&events), 0);
}

#[test]
fn time_passing_ends_an_open_game_aborted_once_its_expiry_is_due() {
    // Created at 1 ms, nobody joined: the house's open-game expiry is an hour.
    let state = GameState::replay(
        "g",
        &[created(Position::initial(), None)],
        Duration::from_secs(30),
        Instant::now(),
        |_, _, _| {},
    )
    .expect("replays");
    let due = 1 + 3_600_000;
    let now = Instant::now();
    assert_eq!(tick(&state, now, due - 1), None);
    let Some(Event::End { outcome, clock, .. }) = tick(&state, now, due).map(|c| c.event().clone())
    else {
        panic!("due");
    };
    assert_eq!(outcome, policy::aborted());
    assert_eq!(clock, None);
    assert_eq!(
        state.next_tick(&HOUSE.expiry, now, due - 1_000),
        Some(now + Duration::from_secs(1))
    );
}
