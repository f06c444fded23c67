//! One queue of a pool, pure: who waits, who may meet whom and at what cost, and what a wave
//! does (pairs the most players at the least cost, counts a missed wave for the others). The
//! instants are the caller's, so every rule is tested without a clock or a socket; what a seek
//! carries for the I/O (its account, its reply) is the generic `T`.
//!
//! The cost of a pair is lichess's: the rating difference less a bonus that grows by
//! [`MISS_BONUS`] points with each wave a player missed, up to [`MAX_MISS_BONUS`]. Unlike
//! lichess, no pair is too far apart to be made: Marseillais players are few, and a wave pairs
//! all it can (the most pairs, then the cheapest), so that nobody who could play waits. The
//! bonus then decides who waits when one must (an odd number, or a block): both players'
//! bonuses count (lichess's first rule; today's lichess counts the smaller one, which would
//! leave a long-waiting player out as readily as one who just came).

use std::collections::HashSet;
use std::time::{Duration, Instant};

use crate::server::domain::user::UserId;
use crate::server::play::room::ConnId;
use crate::server::web::ratelimit::Client;

use super::matching;

/// Points of rating difference forgiven for each missed wave.
pub const MISS_BONUS: u32 = 12;
/// At most this many points are forgiven.
pub const MAX_MISS_BONUS: u32 = 460;

/// Who seeks: an account (one seek at a time, whichever of its pages made it) or one
/// anonymous page.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Seeker {
    Account(UserId),
    Anonymous(ConnId),
}

/// One seek in a queue.
#[derive(Debug)]
pub struct Seek<T> {
    pub seeker: Seeker,
    /// The lobby page that made it: the one told of its game, and the one whose closing
    /// withdraws it.
    pub conn: ConnId,
    /// The address it came from (seeks are bounded per address).
    pub client: Client,
    /// The account's rating for the pool's speed when it joined; `None`: anonymous.
    pub rating: Option<i32>,
    /// Whom this account has blocked: never paired with them, nor they with it.
    pub blocking: HashSet<UserId>,
    /// Waves run since it joined without pairing it.
    pub misses: u32,
    pub payload: T,
}

impl<T> Seek<T> {
    fn user(&self) -> Option<UserId> {
        match self.seeker {
            Seeker::Account(user) => Some(user),
            Seeker::Anonymous(_) => None,
        }
    }

    fn miss_bonus(&self) -> u32 {
        (self.misses.saturating_mul(MISS_BONUS)).min(MAX_MISS_BONUS)
    }
}

/// What pairing `a` with `b` costs, or `None` if they may never meet: the same account, an
/// account and an anonymous player, or a block either way. The cost is shifted by twice
/// [`MAX_MISS_BONUS`] to stay non-negative (every matching of a wave with as many pairs has
/// the same shift, so the choice is the same).
pub fn cost<T>(a: &Seek<T>, b: &Seek<T>) -> Option<u32> {
    let (ua, ub) = (a.user(), b.user());
    if ua.is_some() != ub.is_some() || (ua.is_some() && ua == ub) {
        return None;
    }
    if ua.is_some_and(|u| b.blocking.contains(&u)) || ub.is_some_and(|u| a.blocking.contains(&u)) {
        return None;
    }
    let difference = match (a.rating, b.rating) {
        (Some(ra), Some(rb)) => ra.abs_diff(rb),
        _ => 0,
    };
    let bonus = a.miss_bonus() + b.miss_bonus();
    Some(difference.saturating_add(2 * MAX_MISS_BONUS - bonus))
}

/// A queue: the seeks in the order they came, and when its next wave is due.
#[derive(Debug)]
pub struct Queue<T> {
    seeks: Vec<Seek<T>>,
    next_wave: Instant,
}

impl<T> Queue<T> {
    pub fn new(now: Instant, every: Duration) -> Queue<T> {
        Queue {
            seeks: Vec::new(),
            next_wave: now + every,
        }
    }

    pub fn len(&self) -> usize {
        self.seeks.len()
    }

    /// Seeks from `client` other than `seeker`'s.
    pub fn from_client(&self, client: Client, seeker: Seeker) -> usize {
        self.seeks
            .iter()
            .filter(|s| s.client == client && s.seeker != seeker)
            .count()
    }

    pub fn is_empty(&self) -> bool {
        self.seeks.is_empty()
    }

    /// Adds a seek; the seeker's earlier seek in this queue, if any, is taken out and returned
    /// (a seeker waits once).
    pub fn join(&mut self, seek: Seek<T>) -> Option<Seek<T>> {
        let earlier = self.take(|s| s.seeker == seek.seeker);
        self.seeks.push(seek);
        earlier
    }

    /// Takes out the seek of `seeker` made by the page `conn`, if it still waits.
    pub fn leave(&mut self, seeker: Seeker, conn: ConnId) -> Option<Seek<T>> {
        self.take(|s| s.seeker == seeker && s.conn == conn)
    }

    /// Takes out the seek made by the page `conn`, whoever it is.
    pub fn remove_conn(&mut self, conn: ConnId) -> Option<Seek<T>> {
        self.take(|s| s.conn == conn)
    }

    /// Takes out the seek of `seeker`, whichever page made it.
    pub fn remove(&mut self, seeker: Seeker) -> Option<Seek<T>> {
        self.take(|s| s.seeker == seeker)
    }

    fn take(&mut self, which: impl Fn(&Seek<T>) -> bool) -> Option<Seek<T>> {
        let at = self.seeks.iter().position(which)?;
        Some(self.seeks.remove(at))
    }

    /// Puts back seeks that a wave paired but whose game could not be made, with the waves
    /// they had missed: they are the first to be paired again.
    pub fn put_back(&mut self, seek: Seek<T>) {
        if self.seeks.iter().all(|s| s.seeker != seek.seeker) {
            self.seeks.push(seek);
        }
    }

    /// Whether a wave is due at `now`: its time has come, or `full` players wait.
    pub fn due(&self, now: Instant, full: usize) -> bool {
        self.seeks.len() >= full.max(2) || (now >= self.next_wave && self.seeks.len() >= 2)
    }

    /// Runs a wave at `now`: takes out the pairs of the best matching, counts a missed wave
    /// for everyone left, and sets the next wave at `now + every + jitter`.
    pub fn wave(
        &mut self,
        now: Instant,
        every: Duration,
        jitter: Duration,
    ) -> Vec<(Seek<T>, Seek<T>)> {
        self.next_wave = now + every + jitter;
        let seeks = &self.seeks;
        let found = matching::pairs(
            seeks.len(),
            |i| i64::from(seeks[i].rating.unwrap_or(0)),
            |i, j| cost(&seeks[i], &seeks[j]),
        );
        let mut partner: Vec<Option<usize>> = vec![None; seeks.len()];
        for &(a, b) in &found {
            partner[a] = Some(b);
            partner[b] = Some(a);
        }
        let mut taken: Vec<Option<Seek<T>>> = self.seeks.drain(..).map(Some).collect();
        let mut pairs = Vec::with_capacity(found.len());
        for (a, b) in found {
            if let (Some(x), Some(y)) = (taken[a].take(), taken[b].take()) {
                pairs.push((x, y));
            }
        }
        self.seeks = taken
            .into_iter()
            .flatten()
            .map(|mut s| {
                s.misses = s.misses.saturating_add(1);
                s
            })
            .collect();
        pairs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn account(id: i64, rating: i32) -> Seek<()> {
        Seek {
            seeker: Seeker::Account(UserId(id)),
            conn: id as u64,
            client: Client::from(std::net::IpAddr::from([127, 0, 0, 1])),
            rating: Some(rating),
            blocking: HashSet::new(),
            misses: 0,
            payload: (),
        }
    }

    fn anonymous(conn: u64) -> Seek<()> {
        Seek {
            seeker: Seeker::Anonymous(conn),
            conn,
            client: Client::from(std::net::IpAddr::from([127, 0, 0, 1])),
            rating: None,
            blocking: HashSet::new(),
            misses: 0,
            payload: (),
        }
    }

    fn seekers(pairs: &[(Seek<()>, Seek<()>)]) -> Vec<(Seeker, Seeker)> {
        let mut out: Vec<(Seeker, Seeker)> = pairs
            .iter()
            .map(|(a, b)| {
                let (a, b) = (a.seeker, b.seeker);
                if format!("{a:?}") <= format!("{b:?}") {
                    (a, b)
                } else {
                    (b, a)
                }
            })
            .collect();
        out.sort_by_key(|p| format!("{p:?}"));
        out
    }

    const EVERY: Duration = Duration::from_secs(15);

    #[test]
    fn anonymous_players_meet_only_anonymous_ones() {
        let a = account(1, 1500);
        let x = anonymous(10);
        assert_eq!(cost(&a, &x), None);
        assert_eq!(cost(&x, &a), None);
        assert!(cost(&anonymous(10), &anonymous(11)).is_some());
        let now = Instant::now();
        let mut queue = Queue::new(now, EVERY);
        queue.join(account(1, 1500));
        queue.join(anonymous(10));
        queue.join(account(2, 2400));
        queue.join(anonymous(11));
        let pairs = queue.wave(now, EVERY, Duration::ZERO);
        assert_eq!(
            seekers(&pairs),
            [
                (Seeker::Account(UserId(1)), Seeker::Account(UserId(2))),
                (Seeker::Anonymous(10), Seeker::Anonymous(11)),
            ]
        );
        assert!(queue.is_empty());
    }

    #[test]
    fn a_player_is_never_paired_with_someone_either_of_them_blocked() {
        let mut a = account(1, 1500);
        a.blocking.insert(UserId(2));
        let b = account(2, 1500);
        assert_eq!(cost(&a, &b), None);
        assert_eq!(
            cost(&b, &a),
            None,
            "the blocked one cannot meet the blocker either"
        );
        let now = Instant::now();
        let mut queue = Queue::new(now, EVERY);
        queue.join(a);
        queue.join(b);
        queue.join(account(3, 2500));
        queue.join(account(4, 2500));
        let pairs = queue.wave(now, EVERY, Duration::ZERO);
        // 1-2 would be the cheapest (0 points apart), but only 1-3/2-4 or 1-4/2-3 are allowed.
        assert_eq!(pairs.len(), 2);
        for (x, y) in &pairs {
            let ids = [x.seeker, y.seeker];
            assert!(
                !(ids.contains(&Seeker::Account(UserId(1)))
                    && ids.contains(&Seeker::Account(UserId(2))))
            );
        }
    }

    #[test]
    fn the_closest_ratings_are_paired_and_the_odd_one_out_waits_with_a_miss_counted() {
        let now = Instant::now();
        let mut queue = Queue::new(now, EVERY);
        for (id, rating) in [(1, 1500), (2, 1520), (3, 1900), (4, 1910), (5, 2600)] {
            queue.join(account(id, rating));
        }
        let pairs = queue.wave(now, EVERY, Duration::ZERO);
        assert_eq!(
            seekers(&pairs),
            [
                (Seeker::Account(UserId(1)), Seeker::Account(UserId(2))),
                (Seeker::Account(UserId(3)), Seeker::Account(UserId(4))),
            ]
        );
        assert_eq!(queue.len(), 1);
        assert_eq!(queue.seeks[0].misses, 1);
    }

    #[test]
    fn each_missed_wave_forgives_12_points_up_to_460() {
        let mut a = account(1, 1500);
        let mut b = account(2, 1700);
        assert_eq!(cost(&a, &b), Some(200 + 920));
        a.misses = 3;
        assert_eq!(cost(&a, &b), Some(200 + 920 - 36));
        b.misses = 2;
        assert_eq!(cost(&a, &b), Some(200 + 920 - 36 - 24));
        a.misses = 100;
        b.misses = 100;
        assert_eq!(cost(&a, &b), Some(200), "at most 460 each");
    }

    #[test]
    fn of_three_the_one_who_waited_longest_is_paired_first() {
        // 1 and 3 are equally far from 2; 3 has missed 5 waves and 1 none: 2 meets 3.
        let now = Instant::now();
        let mut queue = Queue::new(now, EVERY);
        queue.join(account(1, 1400));
        queue.join(account(2, 1500));
        let mut waited = account(3, 1600);
        waited.misses = 5;
        queue.join(waited);
        let pairs = queue.wave(now, EVERY, Duration::ZERO);
        assert_eq!(
            seekers(&pairs),
            [(Seeker::Account(UserId(2)), Seeker::Account(UserId(3)))]
        );
    }

    #[test]
    fn a_seeker_waits_once_and_only_its_own_page_withdraws_it() {
        let now = Instant::now();
        let mut queue: Queue<()> = Queue::new(now, EVERY);
        assert!(queue.join(account(1, 1500)).is_none());
        let mut again = account(1, 1500);
        again.conn = 99;
        assert!(queue.join(again).is_some(), "the first seek is replaced");
        assert_eq!(queue.len(), 1);
        assert!(
            queue.leave(Seeker::Account(UserId(1)), 1).is_none(),
            "not that page's"
        );
        assert!(queue.leave(Seeker::Account(UserId(1)), 99).is_some());
        assert!(queue.is_empty());
    }

    #[test]
    fn a_wave_is_due_at_its_time_with_two_players_or_at_once_when_full() {
        let now = Instant::now();
        let mut queue = Queue::new(now, EVERY);
        queue.join(anonymous(1));
        assert!(!queue.due(now + EVERY, 4), "one player cannot be paired");
        queue.join(anonymous(2));
        assert!(!queue.due(now + EVERY - Duration::from_millis(1), 4));
        assert!(queue.due(now + EVERY, 4));
        queue.join(anonymous(3));
        queue.join(anonymous(4));
        assert!(queue.due(now, 4), "full: at once");
        let pairs = queue.wave(now, EVERY, Duration::from_secs(1));
        assert_eq!(pairs.len(), 2);
        queue.join(anonymous(5));
        queue.join(anonymous(6));
        assert!(!queue.due(now + EVERY, 4), "the jitter counts");
        assert!(queue.due(now + EVERY + Duration::from_secs(1), 4));
    }

    #[test]
    fn a_seek_put_back_after_a_failed_game_keeps_its_misses() {
        let now = Instant::now();
        let mut queue: Queue<()> = Queue::new(now, EVERY);
        let mut seek = account(1, 1500);
        seek.misses = 4;
        queue.put_back(seek);
        queue.put_back(account(1, 1500));
        assert_eq!(queue.len(), 1, "never twice");
        assert_eq!(queue.seeks[0].misses, 4);
    }
}
