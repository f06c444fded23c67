//! The sequential probability ratio test that decides an engine change, as fishtest decides
//! Stockfish's: the generalized SPRT on the pentanomial model with logistic Elo bounds.
//!
//! Games are played in pairs from one opening with the colours swapped, so a pair's two
//! games share the opening's bias; a pair's score (0, ½, 1, 1½ or 2 points) is one sample,
//! counted in [`Pentanomial`]. The log-likelihood ratio of "the change is worth `elo1`"
//! against "it is worth `elo0`" is the ratio of the two maximum-likelihood distributions of
//! the five outcomes whose expected score is that Elo's ([`mle_with_mean`]); the test stops
//! when it leaves Wald's bounds, set by the error rates `alpha` and `beta`.
//!
//! The mathematics are Michel Van den Bergh's, as fishtest implements them in
//! `server/fishtest/stats/LLRcalc.py` (`LLR_logistic`) and `stat_util.py` (`get_elo`); the
//! tests check this port against values that code prints. No Rust crate implements the
//! pentanomial GSPRT (the ones on crates.io test a Bernoulli or two-outcome model).

use std::fmt;

/// A pair's outcome from the first engine's side: the index is its points times two
/// (0: lost both games, 4: won both).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pentanomial {
    /// LL, LD+DL, LW+DD+WL, DW+WD, WW.
    pub counts: [u64; 5],
}

/// One game's result from the first engine's side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameScore {
    Loss,
    Draw,
    Win,
}

impl GameScore {
    /// Half-points: 0, 1 or 2.
    fn halves(self) -> usize {
        match self {
            GameScore::Loss => 0,
            GameScore::Draw => 1,
            GameScore::Win => 2,
        }
    }
}

impl Pentanomial {
    /// Counts a pair of games (the same opening, once with each colour).
    pub fn add(&mut self, first: GameScore, second: GameScore) {
        self.counts[first.halves() + second.halves()] += 1;
    }

    pub fn pairs(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// The five frequencies, a zero made 1e-3 (fishtest's `regularize`): the maximum-likelihood
    /// distributions below need every outcome possible.
    fn regularized(&self) -> ([f64; 5], f64) {
        let counts = self.counts.map(|n| if n == 0 { 1e-3 } else { n as f64 });
        let total = counts.iter().sum();
        (counts, total)
    }

    /// The empirical distribution of a pair's score per game (0, ¼, ½, ¾, 1).
    fn distribution(&self) -> ([f64; 5], [f64; 5], f64) {
        let (counts, total) = self.regularized();
        let values = [0.0, 0.25, 0.5, 0.75, 1.0];
        (values, counts.map(|n| n / total), total)
    }
}

impl fmt::Display for Pentanomial {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [ll, ld, dd, dw, ww] = self.counts;
        write!(f, "[{ll}, {ld}, {dd}, {dw}, {ww}]")
    }
}

/// The expected score of a player `elo` points stronger, logistic.
pub fn score_of_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The Elo difference of an expected score, kept finite (fishtest's clamp to [1e-3, 1 - 1e-3]).
pub fn elo_of_score(score: f64) -> f64 {
    let score = score.clamp(1e-3, 1.0 - 1e-3);
    -400.0 * (1.0 / score - 1.0).log10()
}

/// The root of the secular equation `sum p_i a_i / (1 + x a_i) = 0`, where the `a_i` straddle
/// zero. The left side falls strictly from +inf to -inf between the poles `-1/max a` and
/// `-1/min a`, so bisection finds the one root; 200 halvings are more than a double holds.
fn secular(values: &[f64; 5], probs: &[f64; 5]) -> f64 {
    let f = |x: f64| {
        values
            .iter()
            .zip(probs)
            .map(|(a, p)| p * a / (1.0 + x * a))
            .sum::<f64>()
    };
    let (min, max) = values
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &a| {
            (lo.min(a), hi.max(a))
        });
    let epsilon = 1e-9;
    let (mut lo, mut hi) = (-1.0 / max + epsilon, -1.0 / min - epsilon);
    for _ in 0..200 {
        let mid = (lo + hi) / 2.0;
        if mid <= lo || mid >= hi {
            break;
        }
        if f(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    (lo + hi) / 2.0
}

/// The distribution on `values` nearest `probs` (maximum likelihood) whose mean is `mean`,
/// for `mean` strictly between the smallest and the largest value (Van den Bergh,
/// "support_MLE_multinomial", proposition 1.1).
pub fn mle_with_mean(values: &[f64; 5], probs: &[f64; 5], mean: f64) -> [f64; 5] {
    let shifted = values.map(|a| a - mean);
    let x = secular(&shifted, probs);
    let mut out = [0.0; 5];
    for i in 0..5 {
        out[i] = probs[i] / (1.0 + x * shifted[i]);
    }
    out
}

/// What a test concluded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The LLR crossed the upper bound: the change is worth `elo1` rather than `elo0`.
    H1,
    /// The LLR crossed the lower bound: it is worth `elo0` rather than `elo1`.
    H0,
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Verdict::H1 => "H1 accepted (passed)",
            Verdict::H0 => "H0 accepted (failed)",
        })
    }
}

/// Why a test's terms were refused.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum SprtError {
    #[error("elo0 ({0}) must be below elo1 ({1})")]
    Bounds(f64, f64),
    #[error("alpha and beta must be between 0 and 0.5 (got {0} and {1})")]
    Errors(f64, f64),
}

/// A test's terms: the two hypotheses in logistic Elo and the error rates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sprt {
    elo0: f64,
    elo1: f64,
    alpha: f64,
    beta: f64,
}

impl Sprt {
    pub fn new(elo0: f64, elo1: f64, alpha: f64, beta: f64) -> Result<Sprt, SprtError> {
        if !elo0.is_finite() || !elo1.is_finite() || elo0 >= elo1 {
            return Err(SprtError::Bounds(elo0, elo1));
        }
        let rate = |r: f64| r > 0.0 && r < 0.5;
        if !rate(alpha) || !rate(beta) {
            return Err(SprtError::Errors(alpha, beta));
        }
        Ok(Sprt {
            elo0,
            elo1,
            alpha,
            beta,
        })
    }

    pub fn elo0(&self) -> f64 {
        self.elo0
    }

    pub fn elo1(&self) -> f64 {
        self.elo1
    }

    /// Wald's bounds: (lower, upper) = (ln(beta / (1 - alpha)), ln((1 - beta) / alpha)).
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    /// The generalized log-likelihood ratio of the pairs so far (0 before any pair).
    pub fn llr(&self, results: &Pentanomial) -> f64 {
        if results.pairs() == 0 {
            return 0.0;
        }
        let (values, probs, total) = results.distribution();
        let p0 = mle_with_mean(&values, &probs, score_of_elo(self.elo0));
        let p1 = mle_with_mean(&values, &probs, score_of_elo(self.elo1));
        let per_pair: f64 = (0..5).map(|i| probs[i] * (p1[i].ln() - p0[i].ln())).sum();
        total * per_pair
    }

    /// The verdict once the LLR has left the bounds; `None` while the test goes on.
    pub fn verdict(&self, llr: f64) -> Option<Verdict> {
        let (lower, upper) = self.bounds();
        if llr >= upper {
            Some(Verdict::H1)
        } else if llr <= lower {
            Some(Verdict::H0)
        } else {
            None
        }
    }
}

/// An Elo difference measured from pairs, with its 95 % interval's half-width and the
/// likelihood of superiority.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EloEstimate {
    pub elo: f64,
    pub error95: f64,
    pub los: f64,
}

/// The 97.5 % quantile of the standard normal law.
const Z975: f64 = 1.959_963_984_540_054;

/// fishtest's `get_elo` on pentanomial results: the mean score per game and its standard
/// error from the pairs' variance (which is what pairing buys: a smaller variance).
pub fn estimate(results: &Pentanomial) -> EloEstimate {
    let (counts, pairs) = results.regularized();
    let games = 2.0 * pairs;
    let points: [f64; 5] = [0.0, 0.5, 1.0, 1.5, 2.0];
    let mean = (0..5).map(|i| counts[i] * points[i]).sum::<f64>() / games;
    let variance = (0..5)
        .map(|i| counts[i] * (points[i] - 2.0 * mean).powi(2))
        .sum::<f64>()
        / games;
    let error = (variance / games).sqrt();
    let (low, high) = (mean - Z975 * error, mean + Z975 * error);
    EloEstimate {
        elo: elo_of_score(mean),
        error95: (elo_of_score(high) - elo_of_score(low)) / 2.0,
        los: normal_cdf((mean - 0.5) / error),
    }
}

/// The standard normal law's distribution function, by the complementary error function.
fn normal_cdf(x: f64) -> f64 {
    0.5 * erfc(-x / std::f64::consts::SQRT_2)
}

/// erfc to about 1e-7 relative (Numerical Recipes' Chebyshev fit): the LOS is printed to
/// a tenth of a percent.
fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98
                                + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let r = t * poly.exp();
    if x >= 0.0 { r } else { 2.0 - r }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tolerance: f64) -> bool {
        (a - b).abs() <= tolerance
    }

    #[test]
    fn bounds_are_walds_for_alpha_and_beta() {
        let test = Sprt::new(0.0, 5.0, 0.05, 0.05).expect("terms");
        let (lower, upper) = test.bounds();
        assert!(close(lower, -2.944_438_979_166_440_5, 1e-12));
        assert!(close(upper, 2.944_438_979_166_440_5, 1e-12));
    }

    #[test]
    fn terms_that_cannot_decide_are_refused() {
        assert_eq!(
            Sprt::new(5.0, 0.0, 0.05, 0.05),
            Err(SprtError::Bounds(5.0, 0.0))
        );
        assert!(Sprt::new(0.0, 5.0, 0.0, 0.05).is_err());
        assert!(Sprt::new(0.0, 5.0, 0.05, 0.6).is_err());
        assert!(Sprt::new(f64::NAN, 5.0, 0.05, 0.05).is_err());
    }

    #[test]
    fn the_maximum_likelihood_distribution_has_the_asked_mean_and_sums_to_one() {
        let values = [0.0, 0.25, 0.5, 0.75, 1.0];
        let probs = [0.05, 0.2, 0.5, 0.2, 0.05];
        for mean in [0.3, 0.5, 0.507, 0.7] {
            let p = mle_with_mean(&values, &probs, mean);
            let sum: f64 = p.iter().sum();
            let got: f64 = (0..5).map(|i| p[i] * values[i]).sum();
            assert!(close(sum, 1.0, 1e-9), "{sum}");
            assert!(close(got, mean, 1e-9), "{got} for {mean}");
        }
    }

    #[test]
    fn a_pair_is_counted_by_its_points() {
        let mut results = Pentanomial::default();
        results.add(GameScore::Win, GameScore::Loss);
        results.add(GameScore::Draw, GameScore::Draw);
        results.add(GameScore::Win, GameScore::Draw);
        results.add(GameScore::Loss, GameScore::Loss);
        assert_eq!(results.counts, [1, 0, 2, 1, 0]);
        assert_eq!(results.pairs(), 4);
        assert_eq!(results.to_string(), "[1, 0, 2, 1, 0]");
    }

    /// Reference values printed by fishtest's own code (server/fishtest/stats, commit of the
    /// mirror read on 2026-12-06): `LLRcalc.LLR_logistic(elo0, elo1, results)` and
    /// `stat_util.get_elo(results)`.
    #[test]
    fn the_llr_and_the_elo_estimate_are_fishtests() {
        for (results, elo0, elo1, llr, elo, error95, los) in REFERENCE {
            let test = Sprt::new(*elo0, *elo1, 0.05, 0.05).expect("terms");
            let counts = Pentanomial { counts: *results };
            let got = test.llr(&counts);
            assert!(
                close(got, *llr, 1e-6 * llr.abs().max(1.0)),
                "{results:?}: {got} vs {llr}"
            );
            let estimate = estimate(&counts);
            assert!(close(estimate.elo, *elo, 1e-9), "{estimate:?} vs {elo}");
            assert!(close(estimate.error95, *error95, 1e-9), "{estimate:?}");
            assert!(close(estimate.los, *los, 1e-6), "{estimate:?} vs {los}");
        }
    }

    #[test]
    fn no_pair_has_no_evidence() {
        let test = Sprt::new(0.0, 5.0, 0.05, 0.05).expect("terms");
        assert_eq!(test.llr(&Pentanomial::default()), 0.0);
        assert_eq!(test.verdict(0.0), None);
        assert_eq!(test.verdict(3.0), Some(Verdict::H1));
        assert_eq!(test.verdict(-3.0), Some(Verdict::H0));
    }

    type Reference = ([u64; 5], f64, f64, f64, f64, f64, f64);
    include!("sprt_reference.rs");
}
