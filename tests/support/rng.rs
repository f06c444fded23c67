//! The one seeded random generator of the tests (xorshift64*): small,
//! deterministic, and with its seed printed when a test fails, so that the
//! failing run can be repeated.

use std::time::Duration;

/// The seed of every test that does not set its own.
pub const DEFAULT_SEED: u64 = 0x6d61_7273_6569_6c6c;
/// Sets the seed of every seeded test; `random` takes one from the clock.
pub const SEED_VAR: &str = "MARSEILLAIS_TEST_SEED";

pub struct Rng(u64);

/// Prints the seed if the test panics while this is alive.
pub struct SeedNote {
    seed: u64,
    var: String,
}

impl Drop for SeedNote {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!(
                "*** seeded test failed: replay with {}={} ***",
                self.var, self.seed
            );
        }
    }
}

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }

    /// A seed from `var` (a test's own variable) if set, else from
    /// [`SEED_VAR`], else [`DEFAULT_SEED`]; either may say `random`.
    /// Keep the note alive for the whole test: it prints the seed on failure.
    pub fn seeded_from_env(var: &str) -> (Rng, u64, SeedNote) {
        let (seed, from) = [var, SEED_VAR]
            .iter()
            .find_map(|name| {
                let text = std::env::var(name).ok()?;
                let seed = if text.trim() == "random" {
                    clock_seed()
                } else {
                    text.trim().parse().ok()?
                };
                Some((seed, name.to_string()))
            })
            .unwrap_or((DEFAULT_SEED, var.to_string()));
        (Rng::new(seed), seed, SeedNote { seed, var: from })
    }

    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// Uniform-enough in `0..n` (n > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }

    pub fn between_ms(&mut self, low: u64, high: u64) -> Duration {
        Duration::from_millis(low + self.below(high.saturating_sub(low) + 1))
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        if items.is_empty() {
            None
        } else {
            items.get(self.below(items.len() as u64) as usize)
        }
    }
}

fn clock_seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(1)
}
