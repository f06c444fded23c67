//! Legal-move generations per accepted sub-move on the server's path, counted by the rules'
//! per-thread counter. The room's path for one sub-move is: the ack-id check, the
//! version check, the timeouts, `decide`, the listing row of the commit, the stored text,
//! `apply`, and the projection of each event into its message; this test runs exactly those
//! calls (the store and the sockets add no generation). Target (issue 9): at most 2; it was
//! 8 to 11 before the typed core. Run with
//! `cargo test --release --test system server::generations::`.

use std::time::{Duration, Instant};

use marseillais::rules::{
    Color, Generations, Position, Rules, SubMove, generations, reset_generations,
};
use marseillais::server::game::expiry::Expiry;
use marseillais::server::game::policy::TakebackLimits;
use marseillais::server::game::{
    ClockSpec, Decided, Event, GameState, HouseRules, Input, Request, TimeControl, Variant,
};
use marseillais::server::play::project;
use marseillais::server::store::codec;

const HOUSE: HouseRules = HouseRules {
    takebacks: TakebackLimits {
        per_turn: 1,
        per_game: 5,
    },
    expiry: Expiry {
        open: Duration::from_secs(3_600),
        open_correspondence: Duration::from_secs(3 * 86_400),
        idle_untimed: Duration::from_secs(86_400),
        unplayed_computer: Duration::from_secs(600),
    },
};

fn game(start: Position) -> GameState {
    let log = [
        Event::Created {
            at_ms: 1,
            variant: Variant::Balanced,
            start,
            clock: Some(TimeControl::Live(ClockSpec {
                base_secs: 300,
                increment_secs: 2,
            })),
            creator: Color::White,
            seat_hash: "w".into(),
            listed: true,
            rated: false,
            user: None,
            arena: None,
        },
        Event::Joined {
            at_ms: 2,
            color: Color::Black,
            seat_hash: "b".into(),
            computer: None,
            user: None,
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

/// One accepted sub-move through the room's calls, and the generations it cost.
fn accept(state: &mut GameState, uci: &str) -> (Vec<String>, Generations) {
    let mv: SubMove = uci.parse().expect("uci");
    let color = state.position().side_to_move();
    let now = Instant::now();
    reset_generations();
    assert!(state.acked(color, uci).is_none());
    state.check_seen(Some(state.version())).expect("fresh");
    assert_eq!(
        state.decide(Input::Tick, &HOUSE, now, 3),
        Ok(Decided::Nothing)
    );
    let Ok(Decided::Events(events)) = state.decide(
        Input::seat(
            color,
            Request::Move {
                mv,
                ack: Some(uci.into()),
                lag: marseillais::server::game::Lag::NONE,
            },
        ),
        &HOUSE,
        now,
        3,
    ) else {
        panic!("{uci} is accepted");
    };
    let _listing = project::listing_after(state, &events);
    let _stored: Vec<String> = events.iter().map(|c| codec::encode(c.event())).collect();
    let mut texts = Vec::new();
    for checked in events {
        let v = state.version() + 1;
        let event = checked.event().clone();
        state.apply(checked, now);
        if let Some(msg) = project::event(state, &event, v, now) {
            texts.push(msg.to_text());
        }
    }
    (texts, generations())
}

#[test]
fn an_accepted_submove_costs_at_most_two_legal_move_generations_on_the_servers_path() {
    let mut state = game(Position::initial());
    let mut worst = 0;
    for uci in ["e2e4", "e7e5", "g8f6", "g1f3", "b1c3", "f8c5", "d7d6"] {
        let (texts, counted) = accept(&mut state, uci);
        assert_eq!(texts.len(), 1, "{uci}: one public message");
        let total = counted.full + counted.any;
        println!("{uci}: {counted:?}");
        worst = worst.max(total);
        assert!(total <= 2, "{uci}: {counted:?}");
    }
    println!("worst: {worst} generation(s) per accepted sub-move");
}

#[test]
fn a_mating_submove_and_its_end_cost_at_most_two_generations_too() {
    // Black to play S2: Qh4 mates.
    let start = Position::from_fen(
        "rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq - 0 2 2",
        Rules::Marseillais,
    )
    .expect("fen");
    let mut state = game(start);
    let (texts, counted) = accept(&mut state, "d8h4");
    assert_eq!(texts.len(), 2, "the move and the end");
    assert!(texts[1].starts_with(r#"{"t":"end""#), "{}", texts[1]);
    println!("mate: {counted:?}");
    assert!(counted.full + counted.any <= 2, "{counted:?}");
}
