//! What the commands share: errors, JSON-lines output, loading data and models, the lane
//! option flags, and an order-preserving thread pool.

use crate::data::{Dataset, BUILTIN};
use crate::error::Error;
use crate::model::{Init, Rbm};
use crate::train::LaneConfig;
use clap::Args;
use serde::Serialize;
use std::io::{self, BufWriter, Stdout, Write};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;

/// Why a command stopped.
#[derive(Debug)]
pub enum Failure {
    /// A message for the user (printed as one `error: …` line).
    Msg(String),
    /// The reader of our output went away (e.g. `| head`): stop quietly.
    BrokenPipe,
}

impl From<Error> for Failure {
    fn from(e: Error) -> Failure {
        Failure::Msg(e.to_string())
    }
}

/// Result of a command.
pub type CliResult<T = ()> = std::result::Result<T, Failure>;

/// Shorthand for a user-facing failure.
pub fn fail<T>(msg: impl Into<String>) -> CliResult<T> {
    Err(Failure::Msg(msg.into()))
}

/// JSON lines on stdout, flushed line by line so a long run can be followed.
pub struct Out {
    w: BufWriter<Stdout>,
}

impl Out {
    /// Standard output.
    pub fn stdout() -> Out {
        Out {
            w: BufWriter::new(io::stdout()),
        }
    }

    /// Writes `v` as one line of JSON (non-finite numbers become `null`).
    pub fn line<T: Serialize + ?Sized>(&mut self, v: &T) -> CliResult {
        let text = serde_json::to_string(v)
            .map_err(|e| Failure::Msg(format!("cannot encode output: {e}")))?;
        let r = self
            .w
            .write_all(text.as_bytes())
            .and_then(|_| self.w.write_all(b"\n"))
            .and_then(|_| self.w.flush());
        r.map_err(|e| {
            if e.kind() == io::ErrorKind::BrokenPipe {
                Failure::BrokenPipe
            } else {
                Failure::Msg(format!("cannot write output: {e}"))
            }
        })
    }
}

/// A built-in data set by name, or else a file of 0/1 patterns (one per line). Built-in names
/// take precedence; write `./bas4` for a file of that name.
pub fn load_data(name: &str) -> CliResult<Dataset> {
    if BUILTIN.iter().any(|b| b.0 == name) {
        return Ok(Dataset::builtin(name)?);
    }
    let path = Path::new(name);
    if !path.exists() {
        return fail(format!(
            "unknown data set '{name}': not a built-in ({}) and no such file",
            BUILTIN.iter().map(|b| b.0).collect::<Vec<_>>().join(", ")
        ));
    }
    let text = std::fs::read_to_string(path)
        .map_err(|e| Failure::Msg(format!("cannot read data file '{name}': {e}")))?;
    let label = path
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_else(|| name.to_string());
    Ok(Dataset::parse(&label, &text)?)
}

/// A model file (`{"visible", "hidden", "w", "b", "c"}`), checked for sizes and finiteness.
pub fn load_model(path: &str) -> CliResult<Rbm> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Failure::Msg(format!("cannot read model file '{path}': {e}")))?;
    Rbm::from_json(&text).map_err(|e| Failure::Msg(format!("{path}: {e}")))
}

/// Writes `model` to `path` as a JSON model file.
pub fn save_model(path: &str, model: &Rbm) -> CliResult {
    std::fs::write(path, model.to_json() + "\n")
        .map_err(|e| Failure::Msg(format!("cannot write model file '{path}': {e}")))
}

/// Checks that `model` fits `data`.
pub fn check_fit(model: &Rbm, data: &Dataset) -> CliResult {
    if model.m() != data.m {
        return fail(format!(
            "the model has {} visible units but data set '{}' has {} per pattern",
            model.m(),
            data.name,
            data.m
        ));
    }
    Ok(())
}

/// The options of a training algorithm (fields of [`LaneConfig`]); an absent flag keeps the
/// `LaneConfig::default()` value, so defaults live in one place.
#[derive(Args, Debug, Clone)]
pub struct AlgoArgs {
    /// Algorithm: cd, mf-cd, pcd, fpcd, sdcp, cs-dcp, cg, ucd (as registered)
    #[arg(long)]
    pub algo: Option<String>,
    /// Gibbs sweeps per update (CD-k, PCD-k, FPCD, CG; UCD's k)
    #[arg(long)]
    pub k: Option<usize>,
    /// Negative chains [default: the batch size]
    #[arg(long)]
    pub chains: Option<usize>,
    /// Mini-batch size [default: the whole data set]
    #[arg(long)]
    pub batch: Option<usize>,
    /// S-DCP / CS-DCP inner steps d
    #[arg(long)]
    pub d: Option<usize>,
    /// S-DCP / CS-DCP Gibbs sweeps K′ per inner step
    #[arg(long)]
    pub kprime: Option<usize>,
    /// CG / CS-DCP sliding factor ν_μ of the visible offset
    #[arg(long)]
    pub nu_mu: Option<f64>,
    /// CG / CS-DCP sliding factor ν_λ of the hidden offset
    #[arg(long)]
    pub nu_lambda: Option<f64>,
    /// FPCD fast learning rate η_F [default: the learning rate]
    #[arg(long)]
    pub fast_lr: Option<f64>,
    /// FPCD decay α of the fast parameters
    #[arg(long)]
    pub fast_decay: Option<f64>,
    /// UCD cap T_max on the coupled steps
    #[arg(long)]
    pub max_steps: Option<usize>,
}

impl AlgoArgs {
    /// Overwrites the fields of `cfg` given on the command line.
    pub fn apply(&self, cfg: &mut LaneConfig) {
        if let Some(a) = &self.algo {
            cfg.algo = a.clone();
        }
        set(&mut cfg.k, self.k);
        set_opt(&mut cfg.chains, self.chains);
        set_opt(&mut cfg.batch, self.batch);
        set(&mut cfg.d, self.d);
        set(&mut cfg.kprime, self.kprime);
        set(&mut cfg.nu_mu, self.nu_mu);
        set(&mut cfg.nu_lambda, self.nu_lambda);
        set_opt(&mut cfg.fast_lr, self.fast_lr);
        set(&mut cfg.fast_decay, self.fast_decay);
        set(&mut cfg.max_steps, self.max_steps);
    }
}

/// The options of a training run beyond the algorithm's (the rest of [`LaneConfig`]).
#[derive(Args, Debug, Clone)]
pub struct TrainArgs {
    #[command(flatten)]
    pub algo: AlgoArgs,
    /// Hidden units n
    #[arg(long)]
    pub hidden: Option<usize>,
    /// Learning rate η
    #[arg(long)]
    pub lr: Option<f64>,
    /// Decay η linearly to 0 over this many updates (Tieleman 2008) [default: off]
    #[arg(long)]
    pub lr_decay_iters: Option<u64>,
    /// Initialisation: sdcp (W ~ N(0, 0.01²), base-rate b) or ucd (all ~ N(0, 0.1²))
    #[arg(long)]
    pub init: Option<Init>,
    /// Evaluate every this many updates
    #[arg(long)]
    pub every: Option<u64>,
    /// Largest smaller layer enumerated for the exact ATLL
    #[arg(long)]
    pub exact_bits: Option<usize>,
    /// L2 weight decay on W
    #[arg(long)]
    pub weight_decay: Option<f64>,
    /// Momentum
    #[arg(long)]
    pub momentum: Option<f64>,
}

impl TrainArgs {
    /// Overwrites the fields of `cfg` given on the command line.
    pub fn apply(&self, cfg: &mut LaneConfig) {
        self.algo.apply(cfg);
        set(&mut cfg.hidden, self.hidden);
        set(&mut cfg.lr, self.lr);
        set_opt(&mut cfg.lr_decay_iters, self.lr_decay_iters);
        set(&mut cfg.init, self.init);
        set(&mut cfg.every, self.every);
        set(&mut cfg.exact_bits, self.exact_bits);
        set(&mut cfg.weight_decay, self.weight_decay);
        set(&mut cfg.momentum, self.momentum);
    }
}

fn set<T>(field: &mut T, v: Option<T>) {
    if let Some(v) = v {
        *field = v;
    }
}

fn set_opt<T>(field: &mut Option<T>, v: Option<T>) {
    if v.is_some() {
        *field = v;
    }
}

/// Threads to use: `requested`, or the available cores.
pub fn threads(requested: Option<usize>) -> CliResult<usize> {
    match requested {
        Some(0) => fail("threads must be at least 1"),
        Some(t) => Ok(t),
        None => Ok(std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)),
    }
}

/// Runs `work(i)` for i in 0..n on up to `threads` scoped threads, taking items in increasing
/// order, and hands each result to `on_result(i, result)` on the calling thread as it arrives.
/// When `on_result` returns false, no further items are started. Results arrive in any order;
/// callers that need a fixed order buffer them by index.
pub fn parallel<T: Send>(
    n: usize,
    threads: usize,
    work: impl Fn(usize) -> T + Sync,
    mut on_result: impl FnMut(usize, T) -> bool,
) {
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let threads = threads.clamp(1, n.max(1));
    std::thread::scope(|s| {
        let (tx, rx) = mpsc::channel();
        for _ in 0..threads {
            let tx = tx.clone();
            let (next, stop, work) = (&next, &stop, &work);
            s.spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= n || tx.send((i, work(i))).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        for (i, r) in rx {
            if !on_result(i, r) {
                stop.store(true, Ordering::Relaxed);
                break;
            }
        }
    });
}

/// `work(i)` for i in 0..n on up to `threads` threads, results in index order.
pub fn parallel_map<T: Send>(n: usize, threads: usize, work: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let mut slots: Vec<Option<T>> = (0..n).map(|_| None).collect();
    parallel(n, threads, work, |i, r| {
        slots[i] = Some(r);
        true
    });
    slots
        .into_iter()
        .map(|s| s.expect("every item ran"))
        .collect()
}
