//! What the remote cache may cost one build: waiting time and memory.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// The time a build may wait on the remote cache, in all (each thread's wait counts in full).
#[derive(Debug)]
pub(crate) struct TimeBudget {
    pub(crate) limit: Duration,
    waited_nanos: AtomicU64,
}

impl TimeBudget {
    pub(crate) fn new(limit: Duration) -> Self {
        Self { limit, waited_nanos: AtomicU64::new(0) }
    }

    pub(crate) fn left(&self) -> Duration {
        self.limit.saturating_sub(Duration::from_nanos(self.waited_nanos.load(Ordering::Relaxed)))
    }

    /// When a wait that starts now must end.
    pub(crate) fn deadline(&self) -> Instant {
        let now = Instant::now();
        // A limit too large for the clock is a day.
        now.checked_add(self.left()).unwrap_or_else(|| now + Duration::from_secs(24 * 60 * 60))
    }

    /// Counts a wait that began at `start` and ends now.
    pub(crate) fn charge_since(&self, start: Instant) {
        let nanos = u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX);
        // Saturating: a counter at its end stays there.
        let _ = self.waited_nanos.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| Some(n.saturating_add(nanos)));
    }

    pub(crate) fn is_spent(&self) -> bool {
        self.left().is_zero()
    }
}

/// A cap on the bytes of entries held in memory at once (downloads and queued uploads).
#[derive(Debug)]
pub(crate) struct MemoryBudget {
    limit: u64,
    held: Mutex<u64>,
    freed: Condvar,
    /// The most ever held at once, for tests.
    peak: AtomicU64,
}

/// Bytes taken from a [`MemoryBudget`], given back on drop.
#[derive(Debug)]
pub(crate) struct Lease {
    budget: Arc<MemoryBudget>,
    bytes: u64,
}

impl Drop for Lease {
    fn drop(&mut self) {
        if let Ok(mut held) = self.budget.held.lock() {
            *held = held.saturating_sub(self.bytes);
        }
        self.budget.freed.notify_all();
    }
}

impl MemoryBudget {
    pub(crate) fn new(limit: u64) -> Arc<Self> {
        Arc::new(Self { limit, held: Mutex::new(0), freed: Condvar::new(), peak: AtomicU64::new(0) })
    }

    /// Takes `bytes`, waiting until they fit; `None` if `give_up` says so first or they never fit.
    pub(crate) fn take(self: &Arc<Self>, bytes: u64, give_up: impl Fn() -> bool) -> Option<Lease> {
        if bytes > self.limit {
            return None;
        }
        let mut held = self.held.lock().ok()?;
        while *held + bytes > self.limit {
            if give_up() {
                return None;
            }
            held = self.freed.wait_timeout(held, Duration::from_millis(5)).ok()?.0;
        }
        *held += bytes;
        self.peak.fetch_max(*held, Ordering::Relaxed);
        Some(Lease { budget: Arc::clone(self), bytes })
    }

    /// The most held at once so far.
    #[cfg(test)]
    pub(crate) fn peak(&self) -> u64 {
        self.peak.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leases_never_hold_more_than_the_budget_and_waiters_get_their_turn() {
        let budget = MemoryBudget::new(100);
        std::thread::scope(|scope| {
            for bytes in [60, 60, 40, 100, 1, 99] {
                let budget = &budget;
                scope.spawn(move || {
                    let lease = budget.take(bytes, || false).expect("room comes as leases are dropped");
                    std::thread::sleep(Duration::from_millis(20));
                    drop(lease);
                });
            }
        });
        assert!(budget.peak() <= 100, "held {} at once", budget.peak());
        assert_eq!(*budget.held.lock().unwrap(), 0, "everything was given back");
        assert!(budget.take(101, || false).is_none(), "more than the whole budget never fits");
        let _all = budget.take(100, || false).unwrap();
        assert!(budget.take(1, || true).is_none(), "a taker can give up instead of waiting");
    }

    #[test]
    fn the_time_left_shrinks_with_each_wait() {
        let budget = TimeBudget::new(Duration::from_millis(50));
        assert!(!budget.is_spent());
        let start = Instant::now();
        std::thread::sleep(Duration::from_millis(30));
        budget.charge_since(start);
        assert!(budget.left() <= Duration::from_millis(20));
        budget.charge_since(start);
        assert!(budget.is_spent() && budget.left().is_zero());
    }
}
