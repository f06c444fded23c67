//! What a commit carries for fair play: the outcomes of the game its events end, read from
//! the game's state before them and the events themselves (the same inputs as the rating and
//! the explorer's count of `crate::server::play::commit`), so judging costs no store read.

use crate::rules::Color;
use crate::server::game::after::After;
use crate::server::game::{Checked, Event, GameState};
use crate::server::store::PlaybanEnd;

use super::rules::{Ending, judge};

/// The outcomes of the game `pending` ends (decided against `state`, which `after` is with
/// them applied); `None` when they do not end it or it judges nobody.
pub fn playban_end(state: &GameState, after: &After, pending: &[Checked]) -> Option<PlaybanEnd> {
    if !after.ends_now {
        return None;
    }
    let (ended_ms, outcome, clocked_end) = pending.iter().find_map(|c| match c.event() {
        Event::End {
            at_ms,
            outcome,
            clock,
        } => Some((*at_ms, *outcome, clock.is_some())),
        _ => None,
    })?;
    let ending = Ending {
        users: Color::ALL.map(|c| after.users[c as usize].map(|u| u.id)),
        both_seated: after.seats.iter().all(|&taken| taken),
        computer: after.computer.is_some(),
        outcome,
        ended_ms,
        aborted_by: after.aborted_by,
        clocked_end,
        turn: after.turn,
        turn_started_ms: after.turn_started_ms,
        live_clock: state
            .clock_spec
            .map(|spec| (spec.base_secs, spec.increment_secs)),
    };
    let seats = judge(&ending);
    if seats.is_empty() {
        return None;
    }
    Some(PlaybanEnd {
        game_id: state.id.clone(),
        at_ms: ended_ms,
        seats,
    })
}
