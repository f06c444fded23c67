//! The Glicko-2 update (Glickman, "Example of the Glicko-2 system", 2013), written out here
//! rather than taken from a crate: it is ~100 lines of arithmetic, and owning it lets the tests
//! follow the paper step by step (its worked example, the Illinois iteration of step 5) and
//! lets the server fix what the paper leaves open: each game is its own rating period (as
//! lichess does), tau is 0.75, and the deviation is kept within [45, 500] after every update.
//!
//! Pure: no store, no clock. [`rate`] is what the store's writer calls, once per rated game, in
//! the same transaction as the game's end; [`rate_period`] is the general step it is built on.

use super::rating::Rating;

/// The system constant (the paper's tau): how much a volatility may change in one period.
/// 0.75 as lichess uses; the paper's example uses 0.5.
pub const TAU: f64 = 0.75;

/// The paper's conversion factor between the Glicko scale and the Glicko-2 scale (step 2).
const SCALE: f64 = 173.7178;
/// The paper's convergence tolerance for the volatility iteration (step 5).
const EPSILON: f64 = 0.000_001;
/// Bounds on the two loops of step 5. The paper's loops end on their own for finite inputs
/// (the Illinois iteration converges in a handful of steps, the bracket search in one or two);
/// the bounds only make sure no input, however odd, can spin the store's writer.
const MAX_BRACKET_STEPS: u32 = 1_000;
const MAX_ILLINOIS_STEPS: u32 = 200;

/// One game of a rating period, from the rated player's side.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Outcome {
    /// The opponent's rating before the period.
    pub opponent: Rating,
    /// 1 for a win, 0.5 for a draw, 0 for a loss.
    pub score: f64,
}

/// One rated game, itself a rating period: both players' new ratings (white's, black's).
/// `score_white` is white's score (1, 0.5 or 0; anything else is clamped into [0, 1], NaN
/// counts as a draw).
pub fn rate(white: Rating, black: Rating, score_white: f64) -> (Rating, Rating) {
    let score_white = clean_score(score_white);
    let white_after = rate_period(
        white,
        &[Outcome {
            opponent: black,
            score: score_white,
        }],
        TAU,
    );
    let black_after = rate_period(
        black,
        &[Outcome {
            opponent: white,
            score: 1.0 - score_white,
        }],
        TAU,
    );
    (white_after, black_after)
}

/// The paper's steps 1-8 for one player over one rating period of `games` (all against the
/// opponents' ratings as they were before the period), with system constant `tau`; then the
/// deviation is clamped into [[`Rating::MIN_DEVIATION`], [`Rating::MAX_DEVIATION`]] and
/// `games` counts the period's games.
///
/// An empty period only widens the deviation (the paper's "player does not compete").
/// Should the arithmetic ever give a non-finite value (it cannot for ratings the store holds),
/// the player's rating and deviation are kept as they were, so one bad row cannot spread.
pub fn rate_period(player: Rating, games: &[Outcome], tau: f64) -> Rating {
    // Step 2: to the Glicko-2 scale.
    let mu = (player.rating - 1500.0) / SCALE;
    let phi = player.deviation / SCALE;
    let sigma = player.volatility;

    if games.is_empty() {
        let widened = (phi * phi + sigma * sigma).sqrt() * SCALE;
        return Rating {
            deviation: clamp_deviation(widened).unwrap_or(player.deviation),
            ..player
        };
    }

    // Steps 3 and 4: the estimated variance v and the improvement sum (delta = v * sum).
    let mut v_inverse = 0.0;
    let mut improvement = 0.0;
    for game in games {
        let mu_j = (game.opponent.rating - 1500.0) / SCALE;
        let phi_j = game.opponent.deviation / SCALE;
        let g_j = g(phi_j);
        let e_j = expected(mu, mu_j, g_j);
        v_inverse += g_j * g_j * e_j * (1.0 - e_j);
        improvement += g_j * (clean_score(game.score) - e_j);
    }
    let v = 1.0 / v_inverse;
    let delta = v * improvement;

    // Step 5: the new volatility.
    let sigma_after = volatility(delta, phi, v, sigma, tau);

    // Steps 6 and 7: the new deviation and rating.
    let phi_star = (phi * phi + sigma_after * sigma_after).sqrt();
    let phi_after = 1.0 / (1.0 / (phi_star * phi_star) + 1.0 / v).sqrt();
    let mu_after = mu + phi_after * phi_after * improvement;

    // Step 8: back to the Glicko scale.
    let rating = SCALE * mu_after + 1500.0;
    let deviation = clamp_deviation(SCALE * phi_after);
    let games_after = player
        .games
        .saturating_add(u32::try_from(games.len()).unwrap_or(u32::MAX));
    match deviation {
        Some(deviation) if rating.is_finite() && sigma_after.is_finite() => Rating {
            rating,
            deviation,
            volatility: sigma_after,
            games: games_after,
        },
        _ => Rating {
            games: games_after,
            ..player
        },
    }
}

/// The paper's g(phi): how much an opponent's uncertainty discounts the game.
fn g(phi: f64) -> f64 {
    1.0 / (1.0 + 3.0 * phi * phi / (std::f64::consts::PI * std::f64::consts::PI)).sqrt()
}

/// The paper's E(mu, mu_j, phi_j), with g(phi_j) already computed.
fn expected(mu: f64, mu_j: f64, g_j: f64) -> f64 {
    1.0 / (1.0 + (-g_j * (mu - mu_j)).exp())
}

/// Step 5: the root of f by the Illinois algorithm (regula falsi halving the stale side).
fn volatility(delta: f64, phi: f64, v: f64, sigma: f64, tau: f64) -> f64 {
    let a = (sigma * sigma).ln();
    let f = |x: f64| {
        let ex = x.exp();
        let d = phi * phi + v + ex;
        ex * (delta * delta - phi * phi - v - ex) / (2.0 * d * d) - (x - a) / (tau * tau)
    };

    // Step 5.2: the initial bracket [A, B].
    let mut big_a = a;
    let mut big_b = if delta * delta > phi * phi + v {
        (delta * delta - phi * phi - v).ln()
    } else {
        let mut k = 1.0;
        let mut steps = 1;
        while f(a - k * tau) < 0.0 && steps < MAX_BRACKET_STEPS {
            k += 1.0;
            steps += 1;
        }
        a - k * tau
    };

    // Steps 5.3-5.4: narrow the bracket until it is within the tolerance.
    let mut f_a = f(big_a);
    let mut f_b = f(big_b);
    let mut steps = 0;
    while (big_b - big_a).abs() > EPSILON && steps < MAX_ILLINOIS_STEPS {
        let big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a);
        let f_c = f(big_c);
        if f_c * f_b <= 0.0 {
            big_a = big_b;
            f_a = f_b;
        } else {
            f_a /= 2.0;
        }
        big_b = big_c;
        f_b = f_c;
        steps += 1;
    }

    // Step 5.5.
    (big_a / 2.0).exp()
}

/// The deviation within the server's bounds, or None if it is not a number at all.
fn clamp_deviation(deviation: f64) -> Option<f64> {
    deviation
        .is_finite()
        .then(|| deviation.clamp(Rating::MIN_DEVIATION, Rating::MAX_DEVIATION))
}

/// A score within [0, 1]; NaN counts as a draw.
fn clean_score(score: f64) -> f64 {
    if score.is_nan() {
        0.5
    } else {
        score.clamp(0.0, 1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rating(rating: f64, deviation: f64, volatility: f64) -> Rating {
        Rating {
            rating,
            deviation,
            volatility,
            games: 0,
        }
    }

    fn close(actual: f64, expected: f64, tolerance: f64) -> bool {
        (actual - expected).abs() <= tolerance
    }

    /// Glickman's worked example: 1500/200/0.06 against 1400/30 (win), 1550/100 (loss) and
    /// 1700/300 (loss), tau 0.5. The paper prints 1464.06 / 151.52 / 0.05999 from intermediate
    /// values rounded to 4 digits; carried at full precision the rating is 1464.0507, hence the
    /// rating's tolerance of 0.02; the volatility is 0.059996, which the paper prints as 0.05999.
    #[test]
    fn the_papers_worked_example_gives_the_papers_numbers() {
        let player = rating(1500.0, 200.0, 0.06);
        let games = [
            Outcome {
                opponent: rating(1400.0, 30.0, 0.06),
                score: 1.0,
            },
            Outcome {
                opponent: rating(1550.0, 100.0, 0.06),
                score: 0.0,
            },
            Outcome {
                opponent: rating(1700.0, 300.0, 0.06),
                score: 0.0,
            },
        ];
        let after = rate_period(player, &games, 0.5);
        assert!(close(after.rating, 1464.06, 0.02), "{after:?}");
        assert!(close(after.deviation, 151.52, 0.005), "{after:?}");
        assert!(close(after.volatility, 0.05999, 0.000_01), "{after:?}");
        assert_eq!(after.games, 3);
    }

    /// A hand computation (tau 0.75) of an upset: white 1600/120/0.06 loses to black
    /// 1450/300/0.09. Glicko-2 scale (step 2, / 173.7178):
    ///   white mu = 100/173.7178 = 0.575646, phi = 120/173.7178 = 0.690775
    ///   black mu = -50/173.7178 = -0.287823, phi = 300/173.7178 = 1.726939
    /// White's side (score 0):
    ///   g(phi_black) = 1/sqrt(1 + 3 * 1.726939^2 / pi^2) = 1/sqrt(1.906516) = 0.724235
    ///   E = 1/(1 + exp(-0.724235 * (0.575646 + 0.287823))) = 1/(1 + exp(-0.625355)) = 0.651436
    ///   v = 1/(0.724235^2 * 0.651436 * 0.348564) = 1/0.119101 = 8.396259
    ///   delta = v * 0.724235 * (0 - 0.651436) = 8.396259 * -0.471793 = -3.961294
    ///   step 5: a = ln(0.06^2) = -5.626821; delta^2 = 15.691849 > phi^2 + v = 8.873430, so
    ///   B = ln(15.691849 - 8.873430) = ln(6.818419) = 1.919628; f(A) = 0.000156,
    ///   f(B) = -13.415910; Illinois: C = -5.626734, f(C) = 1.5e-8 (sign opposite to f(B): A := B,
    ///   B := C); C again -5.626734, f(C) = 1.5e-12 (same sign: f(A) halved); then f(C) < 0,
    ///   A := B; |B - A| < 1e-6 after 3 steps: A = -5.626734, sigma' = exp(A/2) = 0.060003
    ///   phi* = sqrt(0.690775^2 + 0.060003^2) = 0.693377
    ///   phi' = 1/sqrt(1/0.693377^2 + 1/8.396259) = 1/sqrt(2.079988 + 0.119101) = 0.674339
    ///   mu' = 0.575646 + 0.674339^2 * -0.471793 = 0.575646 - 0.214540 = 0.361107
    ///   r' = 173.7178 * 0.361107 + 1500 = 1562.73, RD' = 173.7178 * 0.674339 = 117.14
    /// Black's side (score 1):
    ///   g(phi_white) = 1/sqrt(1 + 3 * 0.690775^2 / pi^2) = 1/sqrt(1.145043) = 0.934521
    ///   E = 1/(1 + exp(-0.934521 * (-0.287823 - 0.575646))) = 1/(1 + exp(0.806930)) = 0.308545
    ///   v = 1/(0.934521^2 * 0.308545 * 0.691455) = 1/0.186321 = 5.367094
    ///   delta = v * 0.934521 * (1 - 0.308545) = 5.367094 * 0.646179 = 3.468106
    ///   step 5: a = ln(0.09^2) = -4.815891; delta^2 = 12.027758 > phi^2 + v = 8.349411, so
    ///   B = ln(3.678346) = 1.302463; Illinois converges on A = -4.815771, sigma' = 0.090005
    ///   phi* = sqrt(1.726939^2 + 0.090005^2) = 1.729283
    ///   phi' = 1/sqrt(1/1.729283^2 + 1/5.367094) = 1/sqrt(0.334401 + 0.186321) = 1.385789
    ///   mu' = -0.287823 + 1.385789^2 * 0.646179 = -0.287823 + 1.240930 = 0.953107
    ///   r' = 173.7178 * 0.953107 + 1500 = 1665.57, RD' = 173.7178 * 1.385789 = 240.74
    #[test]
    fn an_upset_between_two_players_matches_the_hand_computation() {
        let white = Rating {
            games: 7,
            ..rating(1600.0, 120.0, 0.06)
        };
        let black = Rating {
            games: 2,
            ..rating(1450.0, 300.0, 0.09)
        };
        let (w, b) = rate(white, black, 0.0);
        assert!(close(w.rating, 1562.73, 0.005), "{w:?}");
        assert!(close(w.deviation, 117.14, 0.005), "{w:?}");
        assert!(close(w.volatility, 0.060003, 0.000_001), "{w:?}");
        assert!(close(b.rating, 1665.57, 0.005), "{b:?}");
        assert!(close(b.deviation, 240.74, 0.005), "{b:?}");
        assert!(close(b.volatility, 0.090005, 0.000_001), "{b:?}");
        assert_eq!((w.games, b.games), (8, 3));
    }

    /// Two newcomers (1500/500/0.09): E = 0.5, g(2.878231) = 0.533146, v = 14.072398,
    /// phi' = 2.284232 (RD 396.81), mu' = +-2.284232^2 * 0.533146 * 0.5 = +-1.390902, so the
    /// winner goes to 1741.62 and the loser to 1258.38.
    #[test]
    fn two_newcomers_move_by_the_same_amount_in_opposite_directions() {
        let (w, b) = rate(Rating::INITIAL, Rating::INITIAL, 1.0);
        assert!(close(w.rating, 1741.62, 0.005), "{w:?}");
        assert!(close(b.rating, 1258.38, 0.005), "{b:?}");
        assert!(close(w.deviation, 396.81, 0.005), "{w:?}");
        assert_eq!(w.deviation, b.deviation);
        assert_eq!(w.rating - 1500.0, 1500.0 - b.rating);
    }

    #[test]
    fn a_draw_is_symmetric_between_the_colours() {
        let a = rating(1720.0, 90.0, 0.06);
        let b = rating(1480.0, 210.0, 0.08);
        let (a_white, b_black) = rate(a, b, 0.5);
        let (b_white, a_black) = rate(b, a, 0.5);
        assert_eq!(a_white, a_black);
        assert_eq!(b_black, b_white);
        // The stronger player loses points by drawing, the weaker gains.
        assert!(a_white.rating < a.rating);
        assert!(b_black.rating > b.rating);
    }

    #[test]
    fn a_draw_between_equals_leaves_both_ratings_where_they_were() {
        let p = rating(1610.0, 75.0, 0.06);
        let (w, b) = rate(p, p, 0.5);
        assert_eq!(w.rating, p.rating);
        assert_eq!(b.rating, p.rating);
        assert!(w.deviation < p.deviation);
    }

    /// 1500/45/0.001 drawing an equal: phi* = sqrt(0.259041^2 + 0.001^2) = 0.259043,
    /// g = 0.989955, v = 1/(0.989955^2 * 0.25) = 4.081586, phi' = 1/sqrt(14.9024 + 0.2450) = 0.25694,
    /// RD 44.63 -> 45.
    #[test]
    fn the_deviation_never_falls_below_45() {
        let p = rating(1500.0, 45.0, 0.001);
        let (w, b) = rate(p, p, 0.5);
        assert_eq!(w.deviation, Rating::MIN_DEVIATION);
        assert_eq!(b.deviation, Rating::MIN_DEVIATION);
    }

    /// A volatile newcomer (500, volatility 0.5) losing as expected to a 4000: the game says
    /// almost nothing (v is huge), so phi' ~ phi* = sqrt(2.878^2 + 0.5^2) = 2.921 (RD 507) -> 500.
    #[test]
    fn the_deviation_never_rises_above_500() {
        let newcomer = rating(1500.0, 500.0, 0.5);
        let (w, _) = rate(newcomer, rating(4000.0, 500.0, 0.06), 0.0);
        assert_eq!(w.deviation, Rating::MAX_DEVIATION);
        // And a period without games widens it no further than the bound.
        let idle = rate_period(newcomer, &[], TAU);
        assert_eq!(idle.deviation, Rating::MAX_DEVIATION);
        assert_eq!(idle.games, 0);
    }

    #[test]
    fn odd_scores_are_clamped_and_nan_counts_as_a_draw() {
        let a = rating(1500.0, 200.0, 0.06);
        let b = rating(1600.0, 100.0, 0.06);
        assert_eq!(rate(a, b, 7.0), rate(a, b, 1.0));
        assert_eq!(rate(a, b, -1.0), rate(a, b, 0.0));
        assert_eq!(rate(a, b, f64::NAN), rate(a, b, 0.5));
    }

    #[test]
    fn a_rating_that_is_not_a_number_is_kept_rather_than_spread() {
        let bad = rating(f64::NAN, 200.0, 0.06);
        let good = rating(1500.0, 200.0, 0.06);
        let (w, b) = rate(bad, good, 1.0);
        assert!(w.rating.is_nan());
        assert_eq!(w.games, 1);
        // The opponent of a broken rating is not rated against it.
        assert_eq!(b.rating, good.rating);
        assert_eq!(b.games, 1);
    }

    mod properties {
        use super::super::*;
        use proptest::prelude::*;

        fn any_rating() -> impl Strategy<Value = Rating> {
            (500.0..3000.0f64, 45.0..500.0f64, 0.01..0.2f64, 0..1000u32).prop_map(
                |(rating, deviation, volatility, games)| Rating {
                    rating,
                    deviation,
                    volatility,
                    games,
                },
            )
        }

        fn expected_score(player: Rating, opponent: Rating) -> f64 {
            let g_j = g(opponent.deviation / SCALE);
            expected(
                (player.rating - 1500.0) / SCALE,
                (opponent.rating - 1500.0) / SCALE,
                g_j,
            )
        }

        proptest! {
            #[test]
            fn the_winner_never_loses_points_and_the_loser_never_gains(
                white in any_rating(), black in any_rating(), white_wins in any::<bool>()
            ) {
                let score = if white_wins { 1.0 } else { 0.0 };
                let (w, b) = rate(white, black, score);
                let (winner_before, winner_after, loser_before, loser_after) = if white_wins {
                    (white, w, black, b)
                } else {
                    (black, b, white, w)
                };
                prop_assert!(winner_after.rating >= winner_before.rating);
                prop_assert!(loser_after.rating <= loser_before.rating);
            }

            /// The sum of the two changes is not zero in general (each side moves by its own
            /// deviation), but each change has the sign of score minus expected score.
            #[test]
            fn each_change_has_the_sign_of_score_minus_expectation(
                white in any_rating(), black in any_rating(), score in prop::sample::select(vec![0.0, 0.5, 1.0])
            ) {
                let (w, b) = rate(white, black, score);
                let surprise_white = score - expected_score(white, black);
                let surprise_black = (1.0 - score) - expected_score(black, white);
                prop_assert!((w.rating - white.rating) * surprise_white >= 0.0);
                prop_assert!((b.rating - black.rating) * surprise_black >= 0.0);
                prop_assert!((Rating::MIN_DEVIATION..=Rating::MAX_DEVIATION).contains(&w.deviation));
                prop_assert!((Rating::MIN_DEVIATION..=Rating::MAX_DEVIATION).contains(&b.deviation));
                prop_assert_eq!((w.games, b.games), (white.games + 1, black.games + 1));
            }
        }
    }
}
