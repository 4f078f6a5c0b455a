//! The papers' claims as data: each preset lists what its paper states about its figure
//! (docs/algorithms.md §6) as checks on the across-trial medians, so a shell can say, for the
//! trials it has run so far, whether each statement holds, does not hold or is not decided
//! yet — with the numbers behind the verdict. `rbm reproduce` prints one line per claim and
//! the page shows them beside its bands; both call [`evaluate`] on the same medians (the
//! page's quantiles are the core's, bit for bit), so they agree.
//!
//! The papers' statements are about medians (or means) over 25–100 trials: a verdict on one
//! trial says what that trial did, not what the paper claims. [`Verdict::trials`] says how
//! many trials the medians are of.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// What a claim checks, on the medians of the lanes it names (by their preset labels). "Final"
/// is the median at the study's last checkpoint, "best" the largest median over the
/// checkpoints, "90% of the way" the first checkpoint whose median reaches
/// A₀ + 0.9·(bound − A₀) (A₀: the median at update 0; see [`super::trials::summarize`]).
#[derive(Clone, Copy, Debug, Serialize, PartialEq)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Check {
    /// The lane's final median is within `within` nats of `value` (a plateau).
    EndsNear {
        /// The lane.
        lane: &'static str,
        /// The level.
        value: f64,
        /// Tolerance in nats.
        within: f64,
    },
    /// The lane's final median is above `level`.
    EndsAboveLevel {
        /// The lane.
        lane: &'static str,
        /// The level.
        level: f64,
    },
    /// Every lane of `lanes` ends above every lane of `than` (final medians).
    EndsAbove {
        /// The lanes that should end higher.
        lanes: &'static [&'static str],
        /// The lanes they should end above.
        than: &'static [&'static str],
    },
    /// The lanes' final medians are within `within` nats of each other.
    EndTogether {
        /// The lanes.
        lanes: &'static [&'static str],
        /// Largest spread in nats.
        within: f64,
    },
    /// The lane's final median is at least `by` nats below its best median (it declines after
    /// its peak).
    Declines {
        /// The lane.
        lane: &'static str,
        /// Nats below the best.
        by: f64,
    },
    /// The lane's final median is within `within` nats of its best median (it keeps
    /// converging).
    StaysNearBest {
        /// The lane.
        lane: &'static str,
        /// Nats below the best at most.
        within: f64,
    },
    /// Every lane of `lanes` gets 90% of the way to the bound at an earlier checkpoint than
    /// every lane of `than` (a lane that never gets there counts as latest).
    Sooner {
        /// The lanes that should be sooner.
        lanes: &'static [&'static str],
        /// The lanes they should beat.
        than: &'static [&'static str],
    },
    /// Like [`Check::Sooner`], 90% of the way from update 0's median to each lane's own best
    /// median (for data without a known bound, e.g. MNIST).
    SoonerToOwnBest {
        /// The lanes that should be sooner.
        lanes: &'static [&'static str],
        /// The lanes they should beat.
        than: &'static [&'static str],
    },
    /// The lane's statistic `stat` (as the checkpoints carry it, combined across trials) is
    /// largest at a checkpoint between updates `from` and `to`, and its final value is below
    /// `falls_to` times that peak.
    StatPeak {
        /// The lane.
        lane: &'static str,
        /// The statistic's key (e.g. UCD's `mean_tau`).
        stat: &'static str,
        /// Earliest update of the peak.
        from: u64,
        /// Latest update of the peak.
        to: u64,
        /// The final value must be below this fraction of the peak.
        falls_to: f64,
    },
}

/// One of a paper's statements, as a check.
#[derive(Clone, Copy, Debug, Serialize, PartialEq)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Claim {
    /// The statement, for people (the thresholds it is checked with included).
    pub text: &'static str,
    /// The learning rates it is about (empty: every rate of the preset).
    pub rates: &'static [f64],
    /// How it is checked.
    pub check: Check,
}

impl Claim {
    /// Whether the claim is about runs at learning rate `lr`.
    pub fn applies_to(&self, lr: f64) -> bool {
        self.rates.is_empty() || self.rates.contains(&lr)
    }

    /// The lanes (labels) the check reads.
    pub fn lanes(&self) -> Vec<&'static str> {
        match self.check {
            Check::EndsNear { lane, .. }
            | Check::EndsAboveLevel { lane, .. }
            | Check::Declines { lane, .. }
            | Check::StaysNearBest { lane, .. }
            | Check::StatPeak { lane, .. } => vec![lane],
            Check::EndsAbove { lanes, than }
            | Check::Sooner { lanes, than }
            | Check::SoonerToOwnBest { lanes, than } => {
                lanes.iter().chain(than.iter()).copied().collect()
            }
            Check::EndTogether { lanes, .. } => lanes.to_vec(),
        }
    }
}

/// One checkpoint of a lane's band as the checks read it: the update, the median ATLL across
/// the trials that reached it (a diverged trial counts as −∞) and the statistics combined
/// across trials.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct BandPoint {
    /// Updates done.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub iter: u64,
    /// Median ATLL.
    pub median: f64,
    /// The algorithm's statistics (e.g. UCD's `mean_tau`), combined across trials.
    #[serde(default)]
    pub stats: BTreeMap<String, f64>,
}

/// A lane's band so far: its preset label, how many trials its final median is of (0 while
/// none has reached the end), and its checkpoints in update order (up to the last one any
/// trial reached).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct LaneBand {
    /// The lane's label in the preset (e.g. "CD-1").
    pub label: String,
    /// Trials behind the final median (those that reached the last checkpoint or diverged).
    pub trials: usize,
    /// The checkpoints.
    pub points: Vec<BandPoint>,
}

/// How a claim stands.
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// The medians say what the paper says.
    Holds,
    /// They do not.
    Fails,
    /// A lane it needs has not reached the last checkpoint, or is not in the run.
    Undecided,
}

impl Status {
    /// The words shells print.
    pub fn words(self) -> &'static str {
        match self {
            Status::Holds => "holds",
            Status::Fails => "does not hold",
            Status::Undecided => "not decided yet",
        }
    }
}

/// A claim's verdict on the bands, with the numbers behind it.
#[derive(Clone, Debug, Serialize, PartialEq)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Verdict {
    /// The claim's text.
    pub claim: &'static str,
    /// How it stands.
    pub status: Status,
    /// `status` as a yes/no (null: not decided).
    pub holds: Option<bool>,
    /// The numbers behind it (medians, updates), or what it waits for.
    pub detail: String,
    /// The fewest trials behind any median it read (0 when undecided).
    pub trials: usize,
}

/// A number for people: three decimals with a real minus sign, −∞ spelled out.
fn num(x: f64) -> String {
    if x == f64::NEG_INFINITY {
        "−∞ (diverged)".into()
    } else if x.is_nan() {
        "n/a".into()
    } else {
        format!("{x:.3}").replace('-', "−")
    }
}

/// An update count for people: thousands grouped with a thin space (10 000).
fn upd(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push('\u{202f}');
        }
        out.push(c);
    }
    out
}

/// What the checks read of one lane.
struct Read<'a> {
    label: &'a str,
    band: &'a LaneBand,
}

impl Read<'_> {
    fn final_median(&self) -> f64 {
        self.band.points.last().map_or(f64::NAN, |p| p.median)
    }

    /// The largest median and the first update it is reached at.
    fn best(&self) -> (f64, u64) {
        let mut best = (f64::NEG_INFINITY, 0);
        for p in &self.band.points {
            if p.median > best.0 {
                best = (p.median, p.iter);
            }
        }
        best
    }

    /// The first update whose median is 90% of the way from update 0's to `bound`.
    fn t90(&self, bound: f64) -> Option<u64> {
        let a0 = self.band.points.first()?.median;
        let target = a0 + 0.9 * (bound - a0);
        self.band
            .points
            .iter()
            .find(|p| p.median >= target)
            .map(|p| p.iter)
    }
}

/// The verdict of each claim of `claims` that applies to learning rate `lr`, in order, on the
/// bands `lanes` of a study whose last checkpoint is update `end`, on data whose best ATLL is
/// `bound` (−H(data); the "90% of the way" checks need it). A claim is undecided while a lane
/// it reads is missing or its band has not reached `end`.
pub fn evaluate(
    claims: &[Claim],
    lr: f64,
    lanes: &[LaneBand],
    end: u64,
    bound: Option<f64>,
) -> Vec<Verdict> {
    claims
        .iter()
        .filter(|c| c.applies_to(lr))
        .map(|c| verdict(c, lanes, end, bound))
        .collect()
}

fn verdict(c: &Claim, lanes: &[LaneBand], end: u64, bound: Option<f64>) -> Verdict {
    let undecided = |detail: String| Verdict {
        claim: c.text,
        status: Status::Undecided,
        holds: None,
        detail,
        trials: 0,
    };
    let mut reads: BTreeMap<&str, Read> = BTreeMap::new();
    let mut waiting = Vec::new();
    for label in c.lanes() {
        match lanes.iter().find(|b| b.label == label) {
            None => {
                return undecided(format!(
                    "needs the lane {label}, which this run does not have"
                ))
            }
            Some(b) => {
                if b.points.last().is_none_or(|p| p.iter < end) || b.trials == 0 {
                    waiting.push(label);
                }
                reads.insert(label, Read { label, band: b });
            }
        }
    }
    if !waiting.is_empty() {
        waiting.dedup();
        return undecided(format!(
            "waiting for {} to reach update {}",
            waiting.join(", "),
            upd(end)
        ));
    }
    let trials = reads.values().map(|r| r.band.trials).min().unwrap_or(0);
    let r = |l: &str| &reads[l];
    let (holds, detail) = match c.check {
        Check::EndsNear {
            lane,
            value,
            within,
        } => {
            let f = r(lane).final_median();
            (
                (f - value).abs() <= within,
                format!(
                    "{lane} ends at {} (the claim: {} ± {})",
                    num(f),
                    num(value),
                    within
                ),
            )
        }
        Check::EndsAboveLevel { lane, level } => {
            let f = r(lane).final_median();
            (
                f > level,
                format!(
                    "{lane} ends at {} (the claim: above {})",
                    num(f),
                    num(level)
                ),
            )
        }
        Check::EndsAbove { lanes, than } => {
            let low = lanes
                .iter()
                .map(|l| (r(l).final_median(), *l))
                .min_by(|a, b| a.0.total_cmp(&b.0))
                .expect("a claim names lanes");
            let high = than
                .iter()
                .map(|l| (r(l).final_median(), *l))
                .max_by(|a, b| a.0.total_cmp(&b.0))
                .expect("a claim names lanes");
            (
                low.0 > high.0,
                format!(
                    "final medians: {}",
                    finals(lanes.iter().chain(than.iter()).map(|l| r(l)))
                ),
            )
        }
        Check::EndTogether { lanes, within } => {
            let f: Vec<f64> = lanes.iter().map(|l| r(l).final_median()).collect();
            let hi = f.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let lo = f.iter().copied().fold(f64::INFINITY, f64::min);
            let spread = hi - lo;
            (
                spread <= within,
                format!(
                    "final medians: {}; spread {} (the claim: at most {within})",
                    finals(lanes.iter().map(|l| r(l))),
                    num(spread)
                ),
            )
        }
        Check::Declines { lane, by } => {
            let (best, at) = r(lane).best();
            let f = r(lane).final_median();
            (
                f <= best - by,
                format!(
                    "{lane}: best median {} at update {}, final {} ({} below; the claim: at least {by})",
                    num(best),
                    upd(at),
                    num(f),
                    num(best - f)
                ),
            )
        }
        Check::StaysNearBest { lane, within } => {
            let (best, at) = r(lane).best();
            let f = r(lane).final_median();
            (
                best - f <= within,
                format!(
                    "{lane}: best median {} at update {}, final {} ({} below; the claim: at most {within})",
                    num(best),
                    upd(at),
                    num(f),
                    num(best - f)
                ),
            )
        }
        Check::Sooner { lanes, than } => match bound {
            None => return undecided("the data set has no known bound".into()),
            Some(b) => sooner(
                lanes,
                than,
                |l| r(l).t90(b),
                format!("the bound {}", num(b)),
            ),
        },
        Check::SoonerToOwnBest { lanes, than } => sooner(
            lanes,
            than,
            |l| {
                let read = r(l);
                read.t90(read.best().0)
            },
            "its own best median".into(),
        ),
        Check::StatPeak {
            lane,
            stat,
            from,
            to,
            falls_to,
        } => {
            let pts = &r(lane).band.points;
            let mut peak: Option<(f64, u64)> = None;
            for p in pts {
                if let Some(&v) = p.stats.get(stat) {
                    if peak.is_none_or(|(best, _)| v > best) {
                        peak = Some((v, p.iter));
                    }
                }
            }
            let last = pts.last().and_then(|p| p.stats.get(stat)).copied();
            let name = crate::train::ALGORITHMS
                .iter()
                .flat_map(|a| a.stats.iter())
                .find(|s| s.key == stat)
                .map_or(stat, |s| s.label);
            match (peak, last) {
                (Some((v, at)), Some(f)) => (
                    (from..=to).contains(&at) && f < falls_to * v,
                    format!(
                        "{lane}'s {name} peaks at {} at update {} (the claim: between {} and {}), ends at {} (the claim: below {})",
                        num(v),
                        upd(at),
                        upd(from),
                        upd(to),
                        num(f),
                        num(falls_to * v)
                    ),
                ),
                _ => (false, format!("{lane} has no statistic '{stat}'")),
            }
        }
    };
    Verdict {
        claim: c.text,
        status: if holds { Status::Holds } else { Status::Fails },
        holds: Some(holds),
        detail,
        trials,
    }
}

/// The number a claim's verdict is about, and by how much it holds: what the claims explorer
/// ([`super::explore`]) maps over its grid.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Measured {
    /// What `value` is, in words.
    pub quantity: &'static str,
    /// The measured quantity (JSON `null` when not finite: a lane that never gets there, or
    /// diverged).
    pub value: f64,
    /// Signed distance from the claim's threshold in the quantity's unit: positive where the
    /// claim holds, negative where it fails (`null` when not finite or not defined).
    pub margin: f64,
}

/// The quantity claim `c` is judged by on `lanes` (the medians [`evaluate`] reads) and its
/// margin, or `None` where the verdict is not decided (a lane missing or short of update
/// `end`, or no bound for a bound-relative time). For the times ("sooner"), a lane that never
/// gets there counts as +∞, so the margin is ±∞ (`null`) and the verdict's sign alone says
/// which side it falls.
pub fn measure(c: &Claim, lanes: &[LaneBand], end: u64, bound: Option<f64>) -> Option<Measured> {
    let mut reads: BTreeMap<&str, Read> = BTreeMap::new();
    for label in c.lanes() {
        let b = lanes.iter().find(|b| b.label == label)?;
        if b.points.last().is_none_or(|p| p.iter < end) || b.trials == 0 {
            return None;
        }
        reads.insert(label, Read { label, band: b });
    }
    let r = |l: &str| &reads[l];
    let fin = |l: &&str| r(l).final_median();
    let m = |quantity, value: f64, margin: f64| Measured {
        quantity,
        value,
        margin,
    };
    let gap = |when: &dyn Fn(&str) -> Option<u64>, lanes: &[&str], than: &[&str]| {
        let t = |l: &&str| when(l).map_or(f64::INFINITY, |t| t as f64);
        let slowest = lanes.iter().map(t).fold(f64::NEG_INFINITY, f64::max);
        let fastest = than.iter().map(t).fold(f64::INFINITY, f64::min);
        fastest - slowest
    };
    Some(match c.check {
        Check::EndsNear {
            lane,
            value,
            within,
        } => {
            let f = r(lane).final_median();
            m("final median", f, within - (f - value).abs())
        }
        Check::EndsAboveLevel { lane, level } => {
            let f = r(lane).final_median();
            m("final median", f, f - level)
        }
        Check::EndsAbove { lanes, than } => {
            let low = lanes.iter().map(fin).fold(f64::INFINITY, f64::min);
            let high = than.iter().map(fin).fold(f64::NEG_INFINITY, f64::max);
            m(
                "lowest final median of the first lanes minus the highest of the others",
                low - high,
                low - high,
            )
        }
        Check::EndTogether { lanes, within } => {
            let hi = lanes.iter().map(fin).fold(f64::NEG_INFINITY, f64::max);
            let lo = lanes.iter().map(fin).fold(f64::INFINITY, f64::min);
            m("spread of the final medians", hi - lo, within - (hi - lo))
        }
        Check::Declines { lane, by } => {
            let drop = r(lane).best().0 - r(lane).final_median();
            m("best median minus final median", drop, drop - by)
        }
        Check::StaysNearBest { lane, within } => {
            let drop = r(lane).best().0 - r(lane).final_median();
            m("best median minus final median", drop, within - drop)
        }
        Check::Sooner { lanes, than } => {
            let b = bound?;
            let d = gap(&|l| r(l).t90(b), lanes, than);
            m(
                "updates by which the first lanes reach 90% of the way to the bound sooner",
                d,
                d,
            )
        }
        Check::SoonerToOwnBest { lanes, than } => {
            let d = gap(
                &|l| {
                    let read = r(l);
                    read.t90(read.best().0)
                },
                lanes,
                than,
            );
            m(
                "updates by which the first lanes reach 90% of the way to their best sooner",
                d,
                d,
            )
        }
        Check::StatPeak { lane, stat, .. } => {
            let peak = r(lane)
                .band
                .points
                .iter()
                .filter_map(|p| p.stats.get(stat).map(|&v| (v, p.iter)))
                .fold(None, |best: Option<(f64, u64)>, (v, at)| match best {
                    Some((b, _)) if b >= v => best,
                    _ => Some((v, at)),
                })?;
            m("update of the statistic's peak", peak.1 as f64, f64::NAN)
        }
    })
}

/// Whether every lane of `lanes` gets there (`when`) before every lane of `than`, and the
/// numbers; a lane that never gets there is later than any that does.
fn sooner(
    lanes: &[&str],
    than: &[&str],
    when: impl Fn(&str) -> Option<u64>,
    goal: String,
) -> (bool, String) {
    let key = |t: Option<u64>| t.unwrap_or(u64::MAX);
    let slowest = lanes.iter().map(|l| key(when(l))).max().unwrap_or(0);
    let fastest_other = than.iter().map(|l| key(when(l))).min().unwrap_or(0);
    let text: Vec<String> = lanes
        .iter()
        .chain(than.iter())
        .map(|l| match when(l) {
            Some(t) => format!("{l} at update {}", upd(t)),
            None => format!("{l} never"),
        })
        .collect();
    (
        slowest != u64::MAX && slowest < fastest_other,
        format!("90% of the way to {goal}: {}", text.join(", ")),
    )
}

fn finals<'a>(reads: impl Iterator<Item = &'a Read<'a>>) -> String {
    reads
        .map(|r| format!("{} {}", r.label, num(r.final_median())))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn band(label: &str, medians: &[f64], trials: usize) -> LaneBand {
        LaneBand {
            label: label.into(),
            trials,
            points: medians
                .iter()
                .enumerate()
                .map(|(i, &m)| BandPoint {
                    iter: 100 * i as u64,
                    median: m,
                    stats: BTreeMap::new(),
                })
                .collect(),
        }
    }

    const CLAIMS: &[Claim] = &[
        Claim {
            text: "A declines",
            rates: &[],
            check: Check::Declines { lane: "A", by: 1.0 },
        },
        Claim {
            text: "B keeps converging",
            rates: &[],
            check: Check::StaysNearBest {
                lane: "B",
                within: 0.5,
            },
        },
        Claim {
            text: "B ends above A",
            rates: &[0.1],
            check: Check::EndsAbove {
                lanes: &["B"],
                than: &["A"],
            },
        },
        Claim {
            text: "B gets there sooner",
            rates: &[],
            check: Check::Sooner {
                lanes: &["B"],
                than: &["A"],
            },
        },
    ];

    #[test]
    fn claims_hold_fail_or_wait_for_the_last_checkpoint() {
        let a = band("A", &[-10.0, -4.0, -6.0], 3);
        let b = band("B", &[-10.0, -3.0, -3.2], 3);
        let v = evaluate(CLAIMS, 0.1, &[a.clone(), b.clone()], 200, Some(-2.5));
        let s: Vec<Status> = v.iter().map(|v| v.status).collect();
        assert_eq!(s, [Status::Holds; 4]);
        assert!(
            v[0].detail
                .contains("best median −4.000 at update 100, final −6.000"),
            "{}",
            v[0].detail
        );
        assert_eq!(
            v[3].detail,
            "90% of the way to the bound −2.500: B at update 100, A never"
        );
        assert_eq!(v[0].trials, 3);
        // At another rate the third claim does not apply.
        assert_eq!(
            evaluate(CLAIMS, 0.01, &[a.clone(), b.clone()], 200, Some(-2.5)).len(),
            3
        );
        // A lane not at the end yet, or missing: not decided.
        let short = band("A", &[-10.0, -4.0], 1);
        let v = evaluate(CLAIMS, 0.1, &[short, b.clone()], 200, Some(-2.5));
        assert_eq!(v[0].status, Status::Undecided);
        assert_eq!(v[0].detail, "waiting for A to reach update 200");
        assert_eq!(v[1].status, Status::Holds);
        let v = evaluate(CLAIMS, 0.1, std::slice::from_ref(&b), 200, None);
        assert!(v[0].detail.contains("does not have"));
        // The other way round, the claims fail.
        let v = evaluate(
            CLAIMS,
            0.1,
            &[
                band("A", &[-10.0, -3.0, -3.2], 2),
                band("B", &[-10.0, -4.0, -6.0], 5),
            ],
            200,
            Some(-2.5),
        );
        assert!(v
            .iter()
            .all(|v| v.status == Status::Fails && v.holds == Some(false)));
        assert_eq!(v[0].trials, 2);
    }

    /// The measured quantity is the number the verdict compares, and its margin's sign is the
    /// verdict; a claim not decided has none.
    #[test]
    fn measures_are_the_verdicts_numbers() {
        let a = band("A", &[-10.0, -4.0, -6.0], 3);
        let b = band("B", &[-10.0, -3.0, -3.2], 3);
        let m: Vec<Measured> = CLAIMS
            .iter()
            .map(|c| measure(c, &[a.clone(), b.clone()], 200, Some(-2.5)).unwrap())
            .collect();
        // A declines by 2 (best −4, final −6), 1 more than the claim's 1.
        assert_eq!((m[0].value, m[0].margin), (2.0, 1.0));
        // B is 0.2 below its best, 0.3 inside the claim's 0.5.
        assert!((m[1].value - 0.2).abs() < 1e-12 && (m[1].margin - 0.3).abs() < 1e-12);
        // B ends 2.8 above A.
        assert!((m[2].value - 2.8).abs() < 1e-12);
        // B gets 90% of the way at update 100, A never: an infinite margin.
        assert_eq!(m[3].value, f64::INFINITY);
        for flipped in [
            [
                band("A", &[-10.0, -3.0, -3.2], 2),
                band("B", &[-10.0, -4.0, -6.0], 5),
            ],
            [a.clone(), b.clone()],
        ] {
            for c in CLAIMS {
                let v = &evaluate(std::slice::from_ref(c), 0.1, &flipped, 200, Some(-2.5))[0];
                let m = measure(c, &flipped, 200, Some(-2.5)).unwrap();
                assert_eq!(m.margin > 0.0, v.holds == Some(true), "{}: {m:?}", c.text);
            }
        }
        let short = band("A", &[-10.0, -4.0], 1);
        assert_eq!(measure(&CLAIMS[0], &[short, b.clone()], 200, None), None);
        assert_eq!(measure(&CLAIMS[3], &[a, b], 200, None), None, "no bound");
    }

    #[test]
    fn stat_peaks_and_levels() {
        let mut u = band("U", &[-9.0, -5.0, -4.0, -3.9], 1);
        for (p, tau) in u.points.iter_mut().zip([0.0, 3.0, 15.0, 2.0]) {
            p.stats.insert("mean_tau".into(), tau);
        }
        let c = [
            Claim {
                text: "tau surges",
                rates: &[],
                check: Check::StatPeak {
                    lane: "U",
                    stat: "mean_tau",
                    from: 100,
                    to: 200,
                    falls_to: 0.5,
                },
            },
            Claim {
                text: "near",
                rates: &[],
                check: Check::EndsNear {
                    lane: "U",
                    value: -3.8,
                    within: 0.15,
                },
            },
            Claim {
                text: "above",
                rates: &[],
                check: Check::EndsAboveLevel {
                    lane: "U",
                    level: -3.0,
                },
            },
            Claim {
                text: "together",
                rates: &[],
                check: Check::EndTogether {
                    lanes: &["U", "U"],
                    within: 0.1,
                },
            },
        ];
        let v = evaluate(&c, 0.1, &[u], 300, None);
        let s: Vec<Status> = v.iter().map(|v| v.status).collect();
        assert_eq!(
            s,
            [Status::Holds, Status::Holds, Status::Fails, Status::Holds]
        );
        assert!(
            v[0].detail.contains("peaks at 15.000 at update 200"),
            "{}",
            v[0].detail
        );
        assert_eq!(upd(10_000), "10\u{202f}000");
        assert_eq!(upd(999), "999");
    }
}
