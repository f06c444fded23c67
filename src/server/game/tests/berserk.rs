//! Berserk (arena games, issue 29): who may, when, and what it does to the clock, through the
//! one entrance and in a replay of the log.

use super::*;

/// An arena game on 3+2 with both seats taken, and its log.
fn arena_game(now: Instant) -> (GameState, Vec<Event>) {
    let mut created = created(
        Position::initial(),
        Some(ClockSpec {
            base_secs: 180,
            increment_secs: 2,
        }),
    );
    if let Event::Created { arena, .. } = &mut created {
        *arena = Some("a1".into());
    }
    let log = vec![created, joined()];
    let state =
        GameState::replay("g", &log, Duration::from_secs(30), now, |_, _, _| {}).expect("replays");
    (state, log)
}

fn refused(state: &GameState, color: Color) -> Refused {
    state
        .decide(
            Input::seat(color, Request::Berserk),
            &HOUSE,
            Instant::now(),
            5,
        )
        .expect_err("refused")
}

#[test]
fn a_berserk_before_the_first_sub_move_halves_the_clock_and_drops_the_increment() {
    let t0 = Instant::now();
    let (mut game, mut log) = arena_game(t0);
    let events = act(&mut game, &mut log, Color::Black, Request::Berserk, t0);
    assert_eq!(
        events,
        [Event::Berserk {
            at_ms: 3,
            by: Color::Black
        }]
    );
    assert_eq!(game.berserk(), [false, true]);
    let clock = game.clock.as_ref().expect("a clock");
    assert_eq!(clock.readings(t0), [180_000, 90_000]);
    // Both first turns, then a whole turn each with the clocks running: White gets its
    // increment, Black none.
    play(&mut game, &mut log, Color::White, "e2e4", t0);
    play(&mut game, &mut log, Color::Black, "e7e5", t0);
    play(&mut game, &mut log, Color::Black, "d7d6", t0);
    let later = t0 + Duration::from_secs(1);
    play(&mut game, &mut log, Color::White, "d2d3", later);
    play(&mut game, &mut log, Color::White, "c2c3", later);
    let later = t0 + Duration::from_secs(3);
    play(&mut game, &mut log, Color::Black, "c7c6", later);
    play(&mut game, &mut log, Color::Black, "b7b6", later);
    let readings = game.clock.as_ref().expect("a clock").readings(later);
    assert_eq!(readings, [181_000, 88_000]);
    // A replay of the log gives the same clock and the same marks.
    let replayed = GameState::replay("g", &log, Duration::from_secs(30), later, |_, _, _| {})
        .expect("replays");
    assert_eq!(replayed.berserk(), [false, true]);
    assert_eq!(
        replayed.clock.as_ref().expect("a clock").readings(later),
        readings
    );
}

#[test]
fn berserk_is_once_only_and_only_before_ones_first_sub_move() {
    let t0 = Instant::now();
    let (mut game, mut log) = arena_game(t0);
    act(&mut game, &mut log, Color::White, Request::Berserk, t0);
    assert_eq!(
        refused(&game, Color::White),
        Refused::Berserk(BerserkRefused::Already)
    );
    play(&mut game, &mut log, Color::White, "e2e4", t0);
    // Black has not played: it may still; after its first sub-move it may not.
    play(&mut game, &mut log, Color::Black, "e7e5", t0);
    assert_eq!(
        refused(&game, Color::Black),
        Refused::Berserk(BerserkRefused::AfterFirstMove)
    );
}

#[test]
fn berserk_is_refused_outside_an_arena_game() {
    let t0 = Instant::now();
    let (game, _) = new_game(Position::initial(), Some(ONE_MINUTE_PLUS_TWO), t0);
    assert_eq!(
        refused(&game, Color::White),
        Refused::Berserk(BerserkRefused::NotAnArenaGame)
    );
}
