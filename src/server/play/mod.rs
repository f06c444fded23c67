//! Playing a game: the wire protocol ([`protocol`]), one actor per live game ([`room`]) and the
//! registry of them ([`rooms`]), a game socket ([`socket`]), what a new game is ([`creation`]),
//! the correspondence schedule ([`schedule`]) and expiry ([`expiry`]), the projections of a
//! game's state for the outside ([`project`], [`export`]), the lobby's rating filter
//! ([`rating_filter`]), the games' signal to "my games" ([`turn_signal`]) and the game routes
//! ([`routes`]).

pub mod commit;
pub mod creation;
pub mod export;
pub mod project;
pub mod protocol;
pub mod rating_filter;
pub mod room;
pub mod rooms;
pub mod routes;
pub mod schedule;
pub mod socket;
pub mod turn_signal;
