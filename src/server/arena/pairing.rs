//! Who meets whom in an arena, pure: lichess's arena pairing. The players waiting (their game
//! over, not withdrawn) are matched by the minimum-cost matching of the pools
//! ([`crate::server::pool::matching`]) with the cost
//! `|rank difference| x rank factor + |rating difference|`, where the rank factor is
//! `300 + 1700 x (last rank - better rank) / last rank`: the leaders' rank differences weigh
//! most, so the leaders meet each other. Two players never meet twice in a row unless they
//! are the only two active players, and nobody plays a colour a fourth time in a row.
//! Pairing stops [`closing_time`] before the end: a game begun then could not finish.

use std::time::Duration;

use crate::server::domain::user::UserId;
use crate::server::pool::matching;

/// Most games of one colour in a row.
pub const MAX_STREAK: i32 = 3;

/// A player's colours so far: `streak` is +n after n games as White in a row, -n after n as
/// Black; `balance` is games as White less games as Black.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Colors {
    pub streak: i32,
    pub balance: i32,
}

impl Colors {
    /// The colours after one more game as White (`true`) or Black.
    pub fn after(self, white: bool) -> Colors {
        let sign = if white { 1 } else { -1 };
        Colors {
            streak: if self.streak * sign > 0 {
                self.streak + sign
            } else {
                sign
            },
            balance: self.balance + sign,
        }
    }

    fn must_be_black(self) -> bool {
        self.streak >= MAX_STREAK
    }

    fn must_be_white(self) -> bool {
        self.streak <= -MAX_STREAK
    }
}

/// A player waiting for a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Waiting {
    pub user: UserId,
    /// 1 for the leader.
    pub rank: u32,
    pub rating: i32,
    pub colors: Colors,
    /// Whom they met last.
    pub last_opponent: Option<UserId>,
}

/// Whether `a` and `b` may meet now: not each other's last opponent (unless they are the only
/// two active players of the arena) and not both bound to the same colour.
pub fn may_meet(a: &Waiting, b: &Waiting, active: usize) -> bool {
    let rematch = a.last_opponent == Some(b.user) || b.last_opponent == Some(a.user);
    if rematch && active > 2 {
        return false;
    }
    let (ca, cb) = (a.colors, b.colors);
    !(ca.must_be_black() && cb.must_be_black() || ca.must_be_white() && cb.must_be_white())
}

/// The cost of `a` meeting `b`, with `last_rank` the rank of the last of the waiting players.
pub fn cost(a: &Waiting, b: &Waiting, last_rank: u32) -> u32 {
    let last_rank = last_rank.max(1);
    let better = a.rank.min(b.rank).min(last_rank);
    let factor = 300 + 1700 * (last_rank - better) / last_rank;
    a.rank.abs_diff(b.rank).saturating_mul(factor) + a.rating.abs_diff(b.rating)
}

/// Whether `a` plays White against `b`: the one bound to a colour gets it; otherwise the one
/// who has had White less often, then the one with the shorter White streak; `coin` breaks a
/// full tie.
pub fn a_is_white(a: Colors, b: Colors, coin: bool) -> bool {
    if a.must_be_black() || b.must_be_white() {
        return false;
    }
    if a.must_be_white() || b.must_be_black() {
        return true;
    }
    match (a.balance, a.streak).cmp(&(b.balance, b.streak)) {
        std::cmp::Ordering::Less => true,
        std::cmp::Ordering::Greater => false,
        std::cmp::Ordering::Equal => coin,
    }
}

/// The games to start now among `waiting`, as (white, black) indices; `active` is the number
/// of players in the arena who have not withdrawn (waiting or playing); `coins` draws a coin
/// per pair (a test passes a fixed one).
pub fn pairs(
    waiting: &[Waiting],
    active: usize,
    coin: impl FnMut() -> bool,
) -> Vec<(usize, usize)> {
    pairs_avoiding(waiting, active, coin, &|_, _| false)
}

/// Whether two players in a block (`blocked`, issue 32) may meet: only when they are the only
/// two active players of the arena, when no other pairing exists for either of them (the
/// rematch rule's exception); the one who blocked can withdraw.
pub fn block_allows(blocked: bool, active: usize) -> bool {
    !blocked || active <= 2
}

/// [`pairs`] where `blocked(a, b)` says whether a block stands between two players: they
/// never meet while anyone else is active ([`block_allows`]).
pub fn pairs_avoiding(
    waiting: &[Waiting],
    active: usize,
    mut coin: impl FnMut() -> bool,
    blocked: &dyn Fn(UserId, UserId) -> bool,
) -> Vec<(usize, usize)> {
    let last_rank = waiting.iter().map(|w| w.rank).max().unwrap_or(1);
    matching::pairs(
        waiting.len(),
        |i| i64::from(waiting[i].rank),
        |i, j| {
            let (a, b) = (&waiting[i], &waiting[j]);
            (may_meet(a, b, active) && block_allows(blocked(a.user, b.user), active))
                .then(|| cost(a, b, last_rank))
        },
    )
    .into_iter()
    .map(|(i, j)| {
        if a_is_white(waiting[i].colors, waiting[j].colors, coin()) {
            (i, j)
        } else {
            (j, i)
        }
    })
    .collect()
}

/// How long before the end pairing stops: half the clock's base time, within 30 s and 120 s
/// (lichess's rule: a game begun later could not be played out).
pub fn closing_time(base: Duration) -> Duration {
    (base / 2).clamp(Duration::from_secs(30), Duration::from_secs(120))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn player(id: i64, rank: u32, rating: i32) -> Waiting {
        Waiting {
            user: UserId(id),
            rank,
            rating,
            colors: Colors::default(),
            last_opponent: None,
        }
    }

    fn users(waiting: &[Waiting], pairs: &[(usize, usize)]) -> Vec<(i64, i64)> {
        let mut out: Vec<(i64, i64)> = pairs
            .iter()
            .map(|&(w, b)| {
                let (x, y) = (waiting[w].user.0, waiting[b].user.0);
                (x.min(y), x.max(y))
            })
            .collect();
        out.sort();
        out
    }

    #[test]
    fn the_leaders_are_paired_together() {
        // Ranks 1-4 with ratings that would pair 1-4 and 2-3 by rating alone.
        let waiting = [
            player(1, 1, 1500),
            player(2, 2, 1900),
            player(3, 3, 1900),
            player(4, 4, 1500),
        ];
        let found = pairs(&waiting, 4, || true);
        assert_eq!(users(&waiting, &found), [(1, 2), (3, 4)]);
    }

    #[test]
    fn the_rank_factor_weighs_the_leaders_rank_differences_most() {
        let (a, b) = (player(1, 1, 1500), player(2, 2, 1500));
        let (y, z) = (player(9, 9, 1500), player(10, 10, 1500));
        assert_eq!(cost(&a, &b, 10), 300 + 1700 * 9 / 10);
        assert_eq!(cost(&y, &z, 10), 300 + 1700 / 10);
        assert!(cost(&a, &b, 10) > cost(&y, &z, 10));
        assert_eq!(cost(&player(1, 1, 1500), &player(2, 1, 1700), 10), 200);
    }

    #[test]
    fn no_immediate_rematch_unless_only_two_are_active() {
        let mut a = player(1, 1, 1500);
        let mut b = player(2, 2, 1500);
        a.last_opponent = Some(b.user);
        b.last_opponent = Some(a.user);
        let c = player(3, 3, 1500);
        let d = player(4, 4, 1500);
        assert!(!may_meet(&a, &b, 4));
        assert!(may_meet(&a, &b, 2), "the only two players may meet again");
        let waiting = [a.clone(), b.clone(), c, d];
        let found = pairs(&waiting, 4, || true);
        let met = users(&waiting, &found);
        assert_eq!(met.len(), 2);
        assert!(!met.contains(&(1, 2)), "{met:?}");
        // Two waiting, others playing: no game rather than the same game again.
        assert!(pairs(&[a.clone(), b.clone()], 5, || true).is_empty());
        assert_eq!(pairs(&[a, b], 2, || true).len(), 1);
    }

    #[test]
    fn two_players_in_a_block_are_not_paired_when_another_pairing_exists() {
        // By rank 1 would meet 2 and 3 would meet 4; 1 and 2 are in a block.
        let waiting = [
            player(1, 1, 1500),
            player(2, 2, 1500),
            player(3, 3, 1500),
            player(4, 4, 1500),
        ];
        let blocked = |a: UserId, b: UserId| {
            let (a, b) = (a.0.min(b.0), a.0.max(b.0));
            (a, b) == (1, 2)
        };
        let found = pairs_avoiding(&waiting, 4, || true, &blocked);
        let met = users(&waiting, &found);
        assert_eq!(met.len(), 2, "everyone still plays: {met:?}");
        assert!(!met.contains(&(1, 2)), "{met:?}");
        // Two waiting in a block, others playing: they wait rather than meet.
        let two = [player(1, 1, 1500), player(2, 2, 1500)];
        assert!(pairs_avoiding(&two, 5, || true, &blocked).is_empty());
        // The only two active players of the arena: no other pairing exists.
        assert_eq!(pairs_avoiding(&two, 2, || true, &blocked).len(), 1);
        assert!(block_allows(false, 10) && !block_allows(true, 3) && block_allows(true, 2));
    }

    #[test]
    fn nobody_plays_a_colour_four_times_in_a_row() {
        let three_whites = Colors::default().after(true).after(true).after(true);
        assert_eq!(
            three_whites,
            Colors {
                streak: 3,
                balance: 3
            }
        );
        let mut a = player(1, 1, 1500);
        let mut b = player(2, 2, 1500);
        a.colors = three_whites;
        b.colors = three_whites;
        assert!(!may_meet(&a, &b, 10), "both must be Black");
        b.colors = Colors::default();
        assert!(may_meet(&a, &b, 10));
        let found = pairs(&[a, b], 10, || true);
        assert_eq!(found, [(1, 0)], "the one with three Whites gets Black");
        let three_blacks = Colors::default().after(false).after(false).after(false);
        assert!(a_is_white(three_blacks, Colors::default(), false));
        assert!(!a_is_white(Colors::default(), three_blacks, true));
    }

    #[test]
    fn white_goes_to_who_had_it_less_often() {
        let more_white = Colors::default().after(true);
        let more_black = Colors::default().after(false);
        assert!(a_is_white(more_black, more_white, false));
        assert!(!a_is_white(more_white, more_black, true));
        assert!(
            a_is_white(Colors::default(), Colors::default(), true),
            "the coin"
        );
        assert!(!a_is_white(Colors::default(), Colors::default(), false));
        assert_eq!(
            more_white.after(false),
            Colors {
                streak: -1,
                balance: 0
            }
        );
    }

    #[test]
    fn pairing_closes_half_the_base_time_before_the_end_within_30_and_120_seconds() {
        assert_eq!(
            closing_time(Duration::from_secs(60)),
            Duration::from_secs(30)
        );
        assert_eq!(
            closing_time(Duration::from_secs(180)),
            Duration::from_secs(90)
        );
        assert_eq!(
            closing_time(Duration::from_secs(600)),
            Duration::from_secs(120)
        );
        assert_eq!(closing_time(Duration::ZERO), Duration::from_secs(30));
    }
}
