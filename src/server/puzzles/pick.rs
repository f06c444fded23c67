//! Which puzzle comes next, as pure rules: the rating a signed-in player is given a puzzle
//! near, and the cursor of the puzzle of the day. The store does the indexed reads
//! (`Store::puzzle_near`, `Store::puzzle_after`).

/// How far from the player's rating the next puzzle may be aimed, either way. A player who
/// always got the puzzle just above their rating would get the same sequence as everyone else
/// at that rating; a spread of 2 x 80 points (about a third of a new player's deviation and
/// about one deviation of a settled one) varies it, while every puzzle stays within reach.
pub const SPREAD: i32 = 80;

/// The rating aimed at: the player's rating moved by `jitter`, a uniform draw in
/// `[-SPREAD, SPREAD]` from the caller.
pub fn target(rating: f64, jitter: i32) -> i32 {
    let rating = if rating.is_finite() { rating } else { 1500.0 };
    (rating.round() as i32).saturating_add(jitter.clamp(-SPREAD, SPREAD))
}

/// The characters of a puzzle id (see `csv::puzzle_id`), in their byte order: the store orders
/// ids by their bytes.
const ALPHABET: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// The cursor of the puzzle of day `day` (days since the Unix epoch): the first puzzle whose
/// id comes after it is the day's. A hash of the day, so that the days walk the set in no
/// visible order, and every node of a cluster picks the same puzzle with no coordination.
pub fn daily_cursor(day: i64) -> String {
    let mut state = (day as u64) ^ 0x9E37_79B9_7F4A_7C15;
    (0..6)
        .map(|_| {
            state = crate::engine::level::splitmix(state);
            ALPHABET[(state % ALPHABET.len() as u64) as usize] as char
        })
        .collect()
}

/// The day (since the Unix epoch, UTC) of `now_ms`.
pub fn day_of(now_ms: i64) -> i64 {
    now_ms.div_euclid(86_400_000)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_target_is_the_rating_moved_by_the_jitter_within_the_spread() {
        assert_eq!(target(1500.4, 0), 1500);
        assert_eq!(target(1500.0, 30), 1530);
        assert_eq!(target(1500.0, 1000), 1500 + SPREAD);
        assert_eq!(target(1500.0, -1000), 1500 - SPREAD);
        assert_eq!(target(f64::NAN, 0), 1500);
    }

    #[test]
    fn the_daily_cursor_is_the_same_all_day_and_changes_with_the_day() {
        let day = day_of(1_796_000_000_000);
        assert_eq!(
            daily_cursor(day),
            daily_cursor(day_of(1_796_000_000_000 + 1000))
        );
        assert_ne!(daily_cursor(day), daily_cursor(day + 1));
        assert_eq!(daily_cursor(day).len(), 6);
        assert!(daily_cursor(day).bytes().all(|b| ALPHABET.contains(&b)));
    }

    #[test]
    fn days_before_the_epoch_are_days_too() {
        assert_eq!(day_of(-1), -1);
        assert_eq!(day_of(0), 0);
        assert_eq!(day_of(86_399_999), 0);
    }
}
