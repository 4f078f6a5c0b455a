//! A study's progress for `rbm reproduce`: the updates its trials have done, heard from the
//! trials' threads at their checkpoints (`Study::trial_heard_on`, `Study::run_job`), on stderr
//! as every long run's ([`Progress`], docs/cli.md "Progress of long runs"). A paper-scale study
//! on a GPU runs for minutes or hours before its first group's lines, and the GPU's part of it
//! is not in the estimate.

use super::common::Progress;
use std::sync::{Mutex, MutexGuard};

/// [`Progress`] over a study's trials, shared by the threads that run them.
pub struct StudyProgress {
    iters: u64,
    state: Mutex<State>,
}

struct State {
    /// Updates done, by trial index (group·runs + trial).
    done: Vec<u64>,
    line: Progress,
}

impl StudyProgress {
    /// A study of `trials` trials of `iters` updates each, estimated at `estimate` seconds,
    /// started now.
    pub fn start(trials: usize, iters: u64, estimate: f64) -> StudyProgress {
        StudyProgress {
            iters,
            state: Mutex::new(State {
                done: vec![0; trials],
                line: Progress::start("reproduce", iters * trials as u64, "updates", estimate),
            }),
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Trial `idx` has done `updates` updates (its checkpoint's records and measurements made);
    /// prints a line when one is due.
    pub fn heard(&self, idx: usize, updates: u64) {
        let mut s = self.state();
        if let Some(d) = s.done.get_mut(idx) {
            *d = updates.min(self.iters);
        }
        let done = s.done.iter().sum();
        s.line.at(done);
    }

    /// Trial `idx` is over (all its records made, or ended by a divergence).
    pub fn finished(&self, idx: usize) {
        self.heard(idx, self.iters);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_trial_counts_up_to_its_length_and_a_finished_one_whole() {
        let p = StudyProgress::start(3, 100, 0.0);
        p.heard(0, 40);
        p.heard(1, 250);
        p.heard(7, 10); // not a trial of the study: ignored
        assert_eq!(p.state().done, [40, 100, 0]);
        p.finished(2);
        assert_eq!(p.state().done, [40, 100, 100]);
    }
}
