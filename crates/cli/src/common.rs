//! What the commands share: errors, JSON-lines output, loading data and models, the lane
//! option flags, and an order-preserving thread pool.

use clap::{Arg, ArgMatches, Args, FromArgMatches};
use rbm_core::data::gzip::{self, MAX_FILE_BYTES};
use rbm_core::data::protocol::Protocol;
use rbm_core::data::{idx, mnist, Dataset, BUILTIN};
use rbm_core::error::Error;
use rbm_core::model::Rbm;
use rbm_core::schema::options::{Default, Kind};
use rbm_core::schema::OptionSpec;
use rbm_core::train::config::{option, options, GENERAL};
use rbm_core::train::{LaneConfig, ALGORITHMS};
use serde::Serialize;
use std::io::{self, BufWriter, Stdout, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::Arc;
use std::time::Instant;

/// Why a command stopped.
#[derive(Debug)]
pub enum Failure {
    /// A message for the user (printed as one `error: …` line).
    Msg(String),
    /// The reader of our output went away (e.g. `| head`): stop quietly.
    BrokenPipe,
}

impl From<Error> for Failure {
    /// An error about one option names its flag.
    fn from(e: Error) -> Failure {
        match e.key() {
            Some(key) => Failure::Msg(format!("{e} (--{})", key.replace('_', "-"))),
            None => Failure::Msg(e.to_string()),
        }
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
    /// The data protocol every line names (`--protocol`), first, when one was given.
    protocol: Option<String>,
}

impl Out {
    /// Standard output.
    pub fn stdout() -> Out {
        Out {
            w: BufWriter::new(io::stdout()),
            protocol: None,
        }
    }

    /// From now on every line starts with `"protocol": name` (the `--protocol` the data were
    /// made binary under), so that figures of different protocols are never compared silently.
    /// Without it the lines are as they always were.
    pub fn name_protocol(&mut self, name: String) {
        self.protocol = Some(name);
    }

    /// Writes `v` as one line of JSON (non-finite numbers become `null`).
    pub fn line<T: Serialize + ?Sized>(&mut self, v: &T) -> CliResult {
        let mut text = serde_json::to_string(v)
            .map_err(|e| Failure::Msg(format!("cannot encode output: {e}")))?;
        if let (Some(p), Some(rest)) = (&self.protocol, text.strip_prefix('{')) {
            let name = serde_json::to_string(p).expect("a string encodes");
            let sep = if rest.starts_with('}') { "" } else { "," };
            text = format!("{{\"protocol\":{name}{sep}{rest}");
        }
        self.raw(&text)
    }

    /// Writes `text` (one line of JSON already encoded, e.g. copied from a file being merged)
    /// as it is.
    pub fn raw(&mut self, text: &str) -> CliResult {
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

/// Largest input file read, before and after gunzip: the core's [`MAX_FILE_BYTES`], the page's
/// limit too (a model of the page's largest lane is ~150 MB of JSON).
pub const MAX_INPUT_BYTES: u64 = MAX_FILE_BYTES as u64;
/// The signals [`interrupt_flag`] catches, as messages name them.
pub const INTERRUPTED: &str = "SIGINT, SIGTERM or SIGHUP";

/// With `install`, Ctrl-C (SIGINT), SIGTERM (what a batch scheduler such as Slurm or GNU
/// parallel's `--timeout` sends) and SIGHUP (a closed terminal) set the returned flag, which a
/// command checks between its steps to save what it has done; a second signal ends the process
/// at once. Without, a flag that is never set (the signals keep their default effect).
pub fn interrupt_flag(install: bool) -> CliResult<Arc<AtomicBool>> {
    let flag = Arc::new(AtomicBool::new(false));
    if install {
        let set = flag.clone();
        ctrlc::set_handler(move || {
            if set.swap(true, Ordering::SeqCst) {
                std::process::exit(130);
            }
        })
        .map_err(|e| Failure::Msg(format!("cannot catch {INTERRUPTED}: {e}")))?;
    }
    Ok(flag)
}

/// A run estimated at this many seconds or more announces itself on stderr at once.
pub const PROGRESS_FROM_SECS: f64 = 5.0;

/// Seconds between two progress lines.
pub const PROGRESS_EVERY_SECS: f64 = 10.0;

/// The progress of a long run on stderr, one JSON line at a time (stdout keeps the results): a
/// first line at the start when the run is estimated at [`PROGRESS_FROM_SECS`] or more, then one
/// every [`PROGRESS_EVERY_SECS`] while it runs (from [`PROGRESS_FROM_SECS`] on when the estimate
/// was shorter).
pub struct Progress {
    command: &'static str,
    unit: &'static str,
    total: u64,
    estimate: f64,
    t0: Instant,
    next: f64,
    /// Items between two looks at the clock (about 50 ms of them by the estimate).
    stride: u64,
}

/// One line of [`Progress`].
#[derive(Serialize)]
struct ProgressLine<'a> {
    progress: &'a str,
    done: u64,
    total: u64,
    unit: &'a str,
    seconds: f64,
    estimated_seconds: f64,
    left_seconds: f64,
}

impl Progress {
    /// Starts the progress of `command` (e.g. "sample") over `total` items named `unit`
    /// ("samples"), estimated by the cost model at `estimate` seconds.
    pub fn start(command: &'static str, total: u64, unit: &'static str, estimate: f64) -> Progress {
        let per_item = estimate / total.max(1) as f64;
        let most = (total / 1000).max(1);
        let mut p = Progress {
            command,
            unit,
            total,
            estimate,
            t0: Instant::now(),
            next: PROGRESS_FROM_SECS,
            stride: ((0.05 / per_item.max(1e-12)) as u64).clamp(1, most),
        };
        if estimate >= PROGRESS_FROM_SECS {
            p.show(0, 0.0);
        }
        p
    }

    /// Notes that `done` items are done, printing a line when one is due.
    pub fn tick(&mut self, done: u64) {
        if done.is_multiple_of(self.stride) {
            self.at(done);
        }
    }

    /// [`Progress::tick`] for callers that report seldom (a study's checkpoints): looks at the
    /// clock every time.
    pub fn at(&mut self, done: u64) {
        let secs = self.t0.elapsed().as_secs_f64();
        if secs >= self.next {
            self.show(done, secs);
        }
    }

    fn show(&mut self, done: u64, secs: f64) {
        let left = if done == 0 {
            self.estimate - secs
        } else {
            secs * (self.total - done.min(self.total)) as f64 / done as f64
        };
        let round = |x: f64| (x.max(0.0) * 10.0).round() / 10.0;
        let line = ProgressLine {
            progress: self.command,
            done,
            total: self.total,
            unit: self.unit,
            seconds: round(secs),
            estimated_seconds: round(self.estimate),
            left_seconds: round(left),
        };
        if let Ok(text) = serde_json::to_string(&line) {
            // A closed stderr must not end the run.
            let _ = writeln!(io::stderr(), "{text}");
        }
        self.next = secs + PROGRESS_EVERY_SECS;
    }
}

/// Reads at most [`MAX_INPUT_BYTES`] from `r` (so `/dev/zero`, a wrong file or a gzip bomb
/// cannot exhaust memory), with a message naming the file.
fn read_capped(r: impl std::io::Read, shown: &str, what: &str) -> CliResult<Vec<u8>> {
    read_at_most(r, MAX_INPUT_BYTES, shown, what)
}

/// [`read_capped`] with the limit `limit`.
fn read_at_most(r: impl std::io::Read, limit: u64, shown: &str, what: &str) -> CliResult<Vec<u8>> {
    use std::io::Read;
    let mut bytes = Vec::new();
    r.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Failure::Msg(format!("cannot read {what} '{shown}': {e}")))?;
    if bytes.len() as u64 > limit {
        return fail(format!(
            "{what} '{shown}' is larger than the limit of {} MiB",
            limit >> 20
        ));
    }
    Ok(bytes)
}

/// The bytes of file `name` (standard input for `-`) as they are, at most [`MAX_INPUT_BYTES`].
fn read_raw(name: &str, what: &str) -> CliResult<Vec<u8>> {
    if name == "-" {
        return read_capped(io::stdin().lock(), "standard input", what);
    }
    let file = std::fs::File::open(name)
        .map_err(|e| Failure::Msg(format!("cannot read {what} '{name}': {e}")))?;
    read_capped(file, name, what)
}

/// The bytes of file `name` (standard input for `-`), unpacked whole when gzip-compressed by
/// the core's one gzip reader ([`gzip::unpack`]: every member; a truncated file or trailing
/// bytes are refused), at most [`MAX_INPUT_BYTES`] before and after.
pub fn read_input(name: &str, what: &str) -> CliResult<Vec<u8>> {
    let bytes = read_raw(name, what)?;
    let shown = if name == "-" {
        "standard input".to_string()
    } else {
        format!("'{name}'")
    };
    Ok(gzip::unpack(&bytes, MAX_FILE_BYTES, &format!("{what} {shown}"))?.into_owned())
}

/// Where a file the repository builds or ships is looked for: `$env`, then `rel` under the
/// working directory and under the repository the binary was built in.
pub fn repo_file(rel: &str, env: &str, missing: &str) -> CliResult<PathBuf> {
    let mut places: Vec<PathBuf> = Vec::new();
    if let Some(p) = std::env::var_os(env) {
        places.push(PathBuf::from(p));
    }
    places.push(PathBuf::from(rel));
    places.push(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../..")
            .join(rel),
    );
    places
        .into_iter()
        .find(|p| p.is_file())
        .ok_or_else(|| Failure::Msg(missing.into()))
}

/// The MNIST asset (`$RBM_MNIST` or `www/public/assets/generated/mnist.bin.gz`).
fn mnist_asset() -> CliResult<PathBuf> {
    repo_file(
        "www/public/assets/generated/mnist.bin.gz",
        "RBM_MNIST",
        "the MNIST asset is not built: run `node scripts/build-mnist.mjs` (or `npm run build`) in \
         the repository, or set RBM_MNIST to its path",
    )
}

/// A built-in data set by name (`bas3`, `shifting-bar`, `bas4`, `mnist`, `mnist-valid`,
/// `mnist-test`), or else a file: 0/1 patterns (one per line) or IDX images (`idx3-ubyte`),
/// either optionally gzipped. Built-in names take precedence; write `./bas4` for a file.
pub fn load_data(name: &str) -> CliResult<Dataset> {
    if BUILTIN.iter().any(|b| b.0 == name) {
        return Ok(Dataset::builtin(name)?);
    }
    if mnist::SPLITS.iter().any(|s| s.0 == name) {
        let images = mnist::decode(&read_input(
            &mnist_asset()?.to_string_lossy(),
            "MNIST asset",
        )?)?;
        return Ok(mnist::split_dataset(&images, name)?);
    }
    let path = Path::new(name);
    if !path.exists() {
        return fail(format!(
            "unknown data set '{name}': not a built-in ({}) and no such file",
            BUILTIN.iter().map(|b| b.0).collect::<Vec<_>>().join(", ")
        ));
    }
    let bytes = read_input(name, "data file")?;
    if idx::looks_like_idx(&bytes) {
        let label = path
            .file_name()
            .map_or(name.into(), |f| f.to_string_lossy().into_owned());
        return Ok(idx::parse(&label, &bytes, None)?.all(&label));
    }
    let text = String::from_utf8(bytes)
        .map_err(|_| Failure::Msg(format!("data file '{name}' is neither 0/1 text nor IDX")))?;
    let label = path
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_else(|| name.to_string());
    Ok(Dataset::parse(&label, &text)?)
}

/// `--protocol paper:SEED`: the data binarised once with a seed and kept fixed (the RBM papers'
/// MNIST evaluation protocol, docs/algorithms.md §2), for training and evaluation alike.
#[derive(Args, Debug, Clone, Default)]
pub struct ProtocolArgs {
    /// Data protocol `paper:SEED`: grey levels binarised once by a Bernoulli draw with seed SEED
    /// and kept fixed, for training and evaluation alike (the RBM papers' MNIST protocol; the
    /// same data and seed give the same bits in every command); every output line then names it
    /// ("protocol"). Without it, grey levels are drawn afresh per use in training and
    /// thresholded at 0.5 for evaluation
    #[arg(long, value_name = "paper:SEED")]
    pub protocol: Option<String>,
}

impl ProtocolArgs {
    /// The protocol given, checked.
    pub fn get(&self) -> CliResult<Option<Protocol>> {
        Ok(self.protocol.as_deref().map(Protocol::parse).transpose()?)
    }

    /// The data set `name` ([`load_data`]) under the protocol given, and the protocol; with
    /// one, every line `out` prints from now on names it ([`Out::name_protocol`]).
    pub fn load(&self, name: &str, out: &mut Out) -> CliResult<(Dataset, Option<Protocol>)> {
        let protocol = self.get()?;
        let data = load_data(name)?;
        match protocol {
            None => Ok((data, None)),
            Some(p) => {
                out.name_protocol(p.name());
                Ok((p.apply(&data), Some(p)))
            }
        }
    }
}

/// A model file — JSON (`{"visible", "hidden", "w", "b", "c"}`) or the binary format
/// (`RBMM`, see `Rbm::to_bytes`), optionally gzipped — checked for sizes and finiteness by the
/// core's reader, the page's too ([`Rbm::from_file_bytes`], which unpacks gzip itself).
pub fn load_model(path: &str) -> CliResult<Rbm> {
    let bytes = read_raw(path, "model file")?;
    Rbm::from_file_bytes(&bytes).map_err(|e| Failure::Msg(format!("{path}: {e}")))
}

/// Fails at once when `path` cannot be written (before hours of training, not after), and
/// leaves no trace: an existing file is opened for appending and left as it is, and for a new
/// file the folder is checked by creating and removing the temporary file [`write_atomic`]
/// would write.
pub fn check_writable(path: &str) -> CliResult {
    let fail = |e: std::io::Error| Failure::Msg(format!("cannot write model file '{path}': {e}"));
    let target = Path::new(path);
    if target.is_dir() {
        return Err(Failure::Msg(format!(
            "cannot write model file '{path}': it is a folder"
        )));
    }
    if target.exists() {
        return std::fs::OpenOptions::new()
            .append(true)
            .open(target)
            .map(drop)
            .map_err(fail);
    }
    let tmp = temporary_path(target);
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&tmp)
        .map_err(fail)?;
    std::fs::remove_file(&tmp).map_err(fail)
}

/// The temporary file beside `target` that [`write_atomic`] writes first: in the same folder
/// (so the rename stays on one file system), hidden, and named after the process.
fn temporary_path(target: &Path) -> std::path::PathBuf {
    let name = target
        .file_name()
        .map_or_else(|| "file".into(), |n| n.to_string_lossy().into_owned());
    target.with_file_name(format!(".{name}.tmp-{}", std::process::id()))
}

/// Writes `bytes` to `path` so that it holds either its old content or all of the new one,
/// whatever happens meanwhile ([`AtomicFile`]). `what` names the file in messages ("model
/// file").
pub fn write_atomic(path: &str, bytes: &[u8], what: &str) -> CliResult {
    let mut f = AtomicFile::create(path, what)?;
    f.write_all(bytes)?;
    f.commit()
}

/// A file written whole or not at all, whatever happens meanwhile (SIGKILL, a full disk, a
/// power cut after the rename): what is written goes to a temporary file in the same folder,
/// which [`AtomicFile::commit`] flushes to the disk and renames over the target. Dropped
/// without a commit (an error on the way), it removes the temporary file and the target is
/// untouched.
pub struct AtomicFile {
    file: Option<std::io::BufWriter<std::fs::File>>,
    tmp: PathBuf,
    path: String,
    what: String,
}

impl AtomicFile {
    /// Starts writing `path` (`what` names it in messages: "model file", "samples file").
    pub fn create(path: &str, what: &str) -> CliResult<AtomicFile> {
        let tmp = temporary_path(Path::new(path));
        let file = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(&tmp)
            .map_err(|e| Failure::Msg(format!("cannot write {what} '{path}': {e}")))?;
        Ok(AtomicFile {
            file: Some(std::io::BufWriter::new(file)),
            tmp,
            path: path.to_string(),
            what: what.to_string(),
        })
    }

    fn fail(&self, e: std::io::Error) -> Failure {
        Failure::Msg(format!("cannot write {} '{}': {e}", self.what, self.path))
    }

    /// Appends `bytes`.
    pub fn write_all(&mut self, bytes: &[u8]) -> CliResult {
        use std::io::Write;
        let r = self.file.as_mut().map_or(Ok(()), |f| f.write_all(bytes));
        r.map_err(|e| self.fail(e))
    }

    /// Flushes everything to the disk, renames the file over the target and flushes the folder.
    pub fn commit(mut self) -> CliResult {
        let Some(f) = self.file.take() else {
            return Ok(());
        };
        let done = f
            .into_inner()
            .map_err(std::io::IntoInnerError::into_error)
            .and_then(|f| f.sync_all())
            .and_then(|()| std::fs::rename(&self.tmp, &self.path));
        done.map_err(|e| {
            let _ = std::fs::remove_file(&self.tmp);
            self.fail(e)
        })?;
        // The rename is on the disk once the folder is: best effort (not every system opens
        // a folder as a file), the new content is already whole either way.
        let folder = match Path::new(&self.path).parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        if let Ok(dir) = std::fs::File::open(folder) {
            let _ = dir.sync_all();
        }
        Ok(())
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if self.file.take().is_some() {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

/// Refuses, before any training, to save an m×n model as JSON when the file could exceed what
/// the CLI reads back ([`MAX_INPUT_BYTES`]; [`Rbm::json_len_max`], and the final newline): the
/// binary formats (`.rbm`, `.q8.rbm`) hold any model the core accepts in half that or less.
pub fn check_readable_back(path: &str, m: usize, n: usize) -> CliResult {
    if path.ends_with(".rbm") || json_fits(m, n, MAX_INPUT_BYTES) {
        return Ok(());
    }
    let numbers = (m * n + m + n) as u64;
    fail(format!(
        "a {m}×{n} model as JSON ('{path}') could exceed the {} MiB that rbm reads back \
         (--save-model): save it in the binary format instead, a name ending in .rbm ({} MiB) \
         or .q8.rbm (8-bit weights)",
        MAX_INPUT_BYTES >> 20,
        (numbers * 4) >> 20
    ))
}

/// Whether the JSON file of any m×n model (and its final newline) fits in `limit` bytes.
fn json_fits(m: usize, n: usize, limit: u64) -> bool {
    Rbm::json_len_max(m, n) < limit
}

/// The bytes of `model`'s file at `path`: the binary format with 8-bit weights when the name
/// ends in `.q8.rbm`, the exact binary format when it ends in `.rbm`, else JSON.
fn model_bytes(path: &str, model: &Rbm) -> Vec<u8> {
    if path.ends_with(".q8.rbm") {
        model.to_quantized_bytes()
    } else if path.ends_with(".rbm") {
        model.to_bytes()
    } else {
        (model.to_json() + "\n").into_bytes()
    }
}

/// Writes `model` to `path` ([`model_bytes`]).
pub fn save_model(path: &str, model: &Rbm) -> CliResult {
    write_atomic(path, &model_bytes(path, model), "model file")
}

/// Checks that `model` fits `data`.
pub fn check_fit(model: &Rbm, data: &Dataset) -> CliResult {
    Ok(rbm_core::eval::exact::check_fit(model, data)?)
}

/// Which options of the schema a command takes as flags.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptionSet {
    /// Every option (`rbm train`).
    All,
    /// The algorithm's own options and the batch size (`rbm grad`: one update at a fixed model).
    Estimator,
}

impl OptionSet {
    fn takes(self, spec: &OptionSpec) -> bool {
        match self {
            OptionSet::All => true,
            OptionSet::Estimator => {
                spec.key == "batch" || !GENERAL.iter().any(|g| g.key == spec.key)
            }
        }
    }
}

/// The flags of a command's lane options, built from the core's option schema
/// ([`rbm_core::train::config::options`]): one `--key` per option with its help, valid range
/// and default, so a new option needs no change here.
#[derive(Debug, Clone, Default)]
pub struct LaneArgs {
    /// The flags given, as (key, text), in schema order; `algo` first when given.
    pub given: Vec<(String, String)>,
}

/// The help line of `spec`: its help, its valid values and its default.
fn help_of(spec: &OptionSpec) -> String {
    let default = match spec.default {
        Default::Int(x) => x.to_string(),
        Default::Float(x) => x.to_string(),
        Default::Name(s) => s.to_string(),
        Default::Derived(s) => s.to_string(),
    };
    format!("{}: {} [default: {default}]", spec.help, spec.range_text())
}

/// The flag of a schema option: `--key` with its value's name and help. A number's flag takes a
/// value that starts with a hyphen (`--lr -inf`, `--lr -1`), so that the schema refuses it
/// naming the flag, rather than clap taking it for an unknown flag.
pub fn schema_flag(spec: &OptionSpec, help: String) -> Arg {
    let numeric = matches!(spec.kind, Kind::Int { .. } | Kind::Float { .. });
    Arg::new(spec.key)
        .long(spec.key.replace('_', "-"))
        .value_name(spec.key.to_uppercase())
        .allow_hyphen_values(numeric)
        .allow_negative_numbers(true)
        .help(help)
}

fn lane_args(cmd: clap::Command, set: OptionSet) -> clap::Command {
    let names: Vec<&str> = ALGORITHMS.iter().map(|a| a.name).collect();
    let mut cmd = cmd.arg(
        Arg::new("algo")
            .long("algo")
            .value_name("NAME")
            .help(format!(
                "Algorithm: {} [default: {}]",
                names.join(", "),
                names[0]
            )),
    );
    for spec in options().into_iter().filter(|s| set.takes(s)) {
        cmd = cmd.arg(schema_flag(spec, help_of(spec)));
    }
    cmd
}

fn lane_values(m: &ArgMatches) -> LaneArgs {
    let mut given = Vec::new();
    let keys = std::iter::once("algo").chain(options().into_iter().map(|s| s.key));
    for key in keys {
        if let Ok(Some(v)) = m.try_get_one::<String>(key) {
            given.push((key.to_string(), v.clone()));
        }
    }
    LaneArgs { given }
}

impl LaneArgs {
    /// Sets the given options on `cfg`, each parsed and checked by its schema; an error names
    /// the option (and so the flag).
    pub fn apply(&self, cfg: &mut LaneConfig) -> rbm_core::Result<()> {
        for (key, text) in &self.given {
            let value = match option(key) {
                Some(spec) => spec.parse(text)?,
                None => serde_json::Value::from(text.as_str()),
            };
            cfg.set(key, value)?;
        }
        Ok(())
    }
}

/// Every lane option as a flag (`rbm train`).
#[derive(Debug, Clone, Default)]
pub struct TrainArgs(pub LaneArgs);

/// The estimator's options as flags (`rbm grad`).
#[derive(Debug, Clone, Default)]
pub struct AlgoArgs(pub LaneArgs);

macro_rules! schema_args {
    ($t:ident, $set:expr) => {
        impl FromArgMatches for $t {
            fn from_arg_matches(m: &ArgMatches) -> Result<Self, clap::Error> {
                Ok($t(lane_values(m)))
            }
            fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
                self.0 = lane_values(m);
                Ok(())
            }
        }
        impl Args for $t {
            fn augment_args(cmd: clap::Command) -> clap::Command {
                lane_args(cmd, $set)
            }
            fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
                lane_args(cmd, $set)
            }
        }
    };
}
schema_args!(TrainArgs, OptionSet::All);
schema_args!(AlgoArgs, OptionSet::Estimator);

/// A seed from the operating system for runs where the user gives none, below 2^53 so the
/// page can replay it (the seed used is always printed).
pub fn entropy_seed() -> u64 {
    let mut buf = [0u8; 8];
    match getrandom::fill(&mut buf) {
        Ok(()) => u64::from_le_bytes(buf) & rbm_core::schema::options::MAX_SEED,
        Err(_) => 0x5EED,
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The largest model `--save-model` writes as JSON is read back, and one more hidden unit
    /// is refused: at a small limit (the same checks as at [`MAX_INPUT_BYTES`]), with every
    /// parameter at its longest JSON form (`Rbm::json_len_max`).
    #[test]
    fn the_largest_json_model_written_is_read_back() {
        let (m, limit) = (30, 64 << 10);
        let largest = (1..10_000).take_while(|&n| json_fits(m, n, limit)).last();
        let n = largest.expect("a model fits");
        assert!(!json_fits(m, n + 1, limit));
        let longest = -1.234_567_8e-5_f32;
        let p = rbm_core::model::Params {
            w: vec![longest; m * n],
            b: vec![longest; m],
            c: vec![longest; n],
        };
        let model = Rbm::from_params(m, n, p).unwrap();
        let bytes = model_bytes("m.json", &model);
        let read = read_at_most(&bytes[..], limit, "m.json", "model file").unwrap();
        assert_eq!(Rbm::from_file_bytes(&read).unwrap(), model);
        // At the real limit: MNIST's 784 visible units as JSON up to about 13 000 hidden
        // units; any model in the binary formats.
        assert!(check_readable_back("m.json", 784, 13_000).is_ok());
        assert!(check_readable_back("m.json", 784, 14_000).is_err());
        assert!(check_readable_back("m.rbm", 784, rbm_core::model::MAX_WEIGHTS / 784).is_ok());
    }
}
