// Generated from the Rust types by crates/wasm/tests/ts_types.rs (ts-rs); do not edit.
// Regenerate: TS_UPDATE=1 cargo test -p rbm-playground --features ts --test ts_types

export type Catalog = { 
/**
 * The algorithms, in registration order (the first is the default).
 */
algorithms: Array<AlgoEntry>, 
/**
 * Every option: the general ones, the algorithms' own, then the page's views' (scope
 * `view`: not part of a lane's configuration).
 */
options: Array<OptionEntry>, 
/**
 * The built-in data sets.
 */
data_sets: Array<DataSetEntry>, 
/**
 * The papers' experiments.
 */
presets: Array<PresetEntry>, };
export type AlgoEntry = { 
/**
 * CLI and API name.
 */
name: string, 
/**
 * Label.
 */
title: string, 
/**
 * Where it comes from.
 */
paper: string, 
/**
 * The keys of the options it reads besides the general ones.
 */
options: Array<string>, 
/**
 * The statistics it reports.
 */
stats: Array<StatSpec>, };
export type OptionEntry = { 
/**
 * Whether every algorithm reads it.
 */
general: boolean, 
/**
 * The algorithms that read it (all of them when `general`).
 */
algos: Array<string>, 
/**
 * Key in [`crate::train::LaneConfig`], the page's URL and the wasm API; the CLI flag is
 * the key with `-` for `_`.
 */
key: string, 
/**
 * Short label for an input (may use the papers' symbols, e.g. "learning rate η").
 */
label: string, 
/**
 * One line of help.
 */
help: string, 
/**
 * Values it takes.
 */
kind: Kind, 
/**
 * Its default.
 */
default: Default, 
/**
 * Whether the page tucks it under "more options" (rarely changed in the papers' set-ups).
 */
advanced: boolean, 
/**
 * Who sets it in the page.
 */
scope: Scope, 
/**
 * Whether a running lane takes a new value at its next update without being rebuilt
 * ([`crate::train::Lane::set_live`]): the step size and the optimizer's coefficients,
 * which no algorithm's state depends on (docs/algorithms.md §4).
 */
live: boolean, };
export type OptionSpec = { 
/**
 * Key in [`crate::train::LaneConfig`], the page's URL and the wasm API; the CLI flag is
 * the key with `-` for `_`.
 */
key: string, 
/**
 * Short label for an input (may use the papers' symbols, e.g. "learning rate η").
 */
label: string, 
/**
 * One line of help.
 */
help: string, 
/**
 * Values it takes.
 */
kind: Kind, 
/**
 * Its default.
 */
default: Default, 
/**
 * Whether the page tucks it under "more options" (rarely changed in the papers' set-ups).
 */
advanced: boolean, 
/**
 * Who sets it in the page.
 */
scope: Scope, 
/**
 * Whether a running lane takes a new value at its next update without being rebuilt
 * ([`crate::train::Lane::set_live`]): the step size and the optimizer's coefficients,
 * which no algorithm's state depends on (docs/algorithms.md §4).
 */
live: boolean, };
export type Kind = { "type": "int", 
/**
 * Smallest valid value.
 */
min: number, 
/**
 * Largest valid value.
 */
max: number, } | { "type": "float", 
/**
 * Smallest valid value.
 */
min: number, 
/**
 * Largest valid value (or bound, when `max_open`).
 */
max: number, 
/**
 * Whether `max` itself is excluded.
 */
max_open: boolean, } | { "type": "choice", 
/**
 * The valid names, the first being the usual one.
 */
choices: Array<string>, };
export type Default = { "type": "int", "value": number } | { "type": "float", "value": number } | { "type": "name", "value": string } | { "type": "derived", "value": string };
export type Scope = "shared" | "lane" | "view";
export type StatSpec = { 
/**
 * Key in [`crate::train::Record::stats`].
 */
key: string, 
/**
 * Label for people (e.g. "mean stopping time τ").
 */
label: string, 
/**
 * Unit, or "" for a pure number.
 */
unit: string, 
/**
 * One line of help.
 */
help: string, 
/**
 * How the values of the updates between two records combine.
 */
over_updates: Aggregate, 
/**
 * How the values of several trials at one checkpoint combine.
 */
over_trials: Aggregate, };
export type Aggregate = "mean" | "max";
export type DataSetEntry = { 
/**
 * Name (CLI `--data`, the page's picker).
 */
name: string, 
/**
 * One line for people.
 */
description: string, 
/**
 * Training rows.
 */
rows: number, 
/**
 * Units per pattern.
 */
m: number, 
/**
 * Image shape `[height, width]`, if the patterns are images.
 */
shape: [number, number] | null, 
/**
 * Largest achievable average log-likelihood (−entropy of the data).
 */
bound: number | null, 
/**
 * The distinct patterns, each as `m` 0/1 numbers, in order of first appearance.
 */
patterns: Array<Array<number>>, 
/**
 * How many rows each distinct pattern has.
 */
counts: Array<number>, 
/**
 * The data asset a shell must load before using this set (e.g. `mnist`; the page fetches
 * `assets/generated/mnist.bin.gz`), or null for sets built into the core.
 */
asset: string | null, };
export type PresetEntry = { 
/**
 * Name (`rbm reproduce NAME`).
 */
name: string, 
/**
 * One line for people.
 */
title: string, 
/**
 * Where the settings come from.
 */
paper: string, 
/**
 * Training data set name (an entry of [`Catalog::data_sets`]; MNIST's splits need their
 * asset loaded).
 */
data: string, 
/**
 * The data set the paper measures the ATLL on (null: the training data).
 */
eval_data: string | null, 
/**
 * The AIS run at each checkpoint (null: the exact ATLL).
 */
ais: AisSpec | null, 
/**
 * Whether η decays linearly to 0 at the end of the run (Tieleman 2008).
 */
decay: boolean, 
/**
 * How the defaults were shortened, and the flags that run the paper's scale.
 */
scale: string, 
/**
 * Hidden units.
 */
hidden: number, 
/**
 * Initialisation.
 */
init: string, 
/**
 * Negative chains (null: one per batch row).
 */
chains: number | null, 
/**
 * Mini-batch size (null: the whole data set).
 */
batch: number | null, 
/**
 * Learning rates; every lane runs at each.
 */
rates: Array<number>, 
/**
 * Where each rate comes from, in the order of `rates`.
 */
rate_notes: Array<string>, 
/**
 * What the paper reports, i.e. what to look for.
 */
expect: string, 
/**
 * Updates per trial.
 */
iters: number, 
/**
 * Evaluation interval in updates.
 */
every: number, 
/**
 * Independent trials per lane and rate.
 */
trials: number, 
/**
 * The paper's trials, length and evaluation where the defaults above are shortened (null:
 * they are the paper's), e.g. `sdcp-mnist`'s 10 trials × 200 epochs with AIS at 10 000 β
 * (Upadhya & Sastry 2017, §4.1): `rbm reproduce NAME --scale paper`.
 */
paper_scale: Extent | null, 
/**
 * The paper's statements, checked on the across-trial medians.
 */
claims: Array<Claim>, 
/**
 * The lanes.
 */
lanes: Array<PresetLaneEntry>, };
export type PresetLaneEntry = { 
/**
 * The paper's name for it (e.g. "S-DCP d=3 K'=4").
 */
label: string, 
/**
 * The algorithm's registered name.
 */
algo: string, 
/**
 * The full configuration [`crate::experiments::Preset::lane_config`] gives at the
 * preset's first learning rate, seed 1 and the preset's evaluation interval.
 */
config: Record<string, number | string | null>, };
export type AisSpec = { 
/**
 * Annealing chains.
 */
particles: number, 
/**
 * Inverse temperatures, 0 and 1 included.
 */
betas: number, };
export type Extent = { 
/**
 * Independent trials per (lane, learning rate).
 */
trials: number, 
/**
 * Updates per trial.
 */
iters: number, 
/**
 * Checkpoint interval in updates.
 */
every: number, 
/**
 * The AIS run at each checkpoint (null: the exact ATLL).
 */
ais: AisSpec | null, };
export type Claim = { 
/**
 * The statement, for people (the thresholds it is checked with included).
 */
text: string, 
/**
 * The learning rates it is about (empty: every rate of the preset).
 */
rates: Array<number>, 
/**
 * How it is checked.
 */
check: Check, };
export type Check = { "kind": "ends_near", 
/**
 * The lane.
 */
lane: string, 
/**
 * The level.
 */
value: number, 
/**
 * Tolerance in nats.
 */
within: number, } | { "kind": "ends_above_level", 
/**
 * The lane.
 */
lane: string, 
/**
 * The level.
 */
level: number, } | { "kind": "ends_above", 
/**
 * The lanes that should end higher.
 */
lanes: Array<string>, 
/**
 * The lanes they should end above.
 */
than: Array<string>, } | { "kind": "end_together", 
/**
 * The lanes.
 */
lanes: Array<string>, 
/**
 * Largest spread in nats.
 */
within: number, } | { "kind": "declines", 
/**
 * The lane.
 */
lane: string, 
/**
 * Nats below the best.
 */
by: number, } | { "kind": "stays_near_best", 
/**
 * The lane.
 */
lane: string, 
/**
 * Nats below the best at most.
 */
within: number, } | { "kind": "sooner", 
/**
 * The lanes that should be sooner.
 */
lanes: Array<string>, 
/**
 * The lanes they should beat.
 */
than: Array<string>, } | { "kind": "sooner_to_own_best", 
/**
 * The lanes that should be sooner.
 */
lanes: Array<string>, 
/**
 * The lanes they should beat.
 */
than: Array<string>, } | { "kind": "stat_peak", 
/**
 * The lane.
 */
lane: string, 
/**
 * The statistic's key (e.g. UCD's `mean_tau`).
 */
stat: string, 
/**
 * Earliest update of the peak.
 */
from: bigint, 
/**
 * Latest update of the peak.
 */
to: bigint, 
/**
 * The final value must be below this fraction of the peak.
 */
falls_to: number, };
export type LaneBand = { 
/**
 * The lane's label in the preset (e.g. "CD-1").
 */
label: string, 
/**
 * Trials behind the final median (those that reached the last checkpoint or diverged).
 */
trials: number, 
/**
 * The checkpoints.
 */
points: Array<BandPoint>, };
export type BandPoint = { 
/**
 * Updates done.
 */
iter: number, 
/**
 * Median ATLL.
 */
median: number, 
/**
 * The algorithm's statistics (e.g. UCD's `mean_tau`), combined across trials.
 */
stats: { [key in string]: number }, };
export type Verdict = { 
/**
 * The claim's text.
 */
claim: string, 
/**
 * How it stands.
 */
status: Status, 
/**
 * `status` as a yes/no (null: not decided).
 */
holds: boolean | null, 
/**
 * The numbers behind it (medians, updates), or what it waits for.
 */
detail: string, 
/**
 * The fewest trials behind any median it read (0 when undecided).
 */
trials: number, };
export type Status = "holds" | "fails" | "undecided";
export type CoreRecord = { 
/**
 * Updates done so far.
 */
iter: number, 
/**
 * Gibbs sweeps per chain spent so far (the equal-compute axis).
 */
sweeps: number, 
/**
 * v|h half-steps per chain spent so far.
 */
vh_steps: number, 
/**
 * Exact average log-likelihood of the training data, when the model is small enough.
 */
atll: number | null, 
/**
 * Exact log Z, alongside `atll`.
 */
log_z: number | null, 
/**
 * Per-algorithm statistics over the updates since the previous record.
 */
stats: { [key in string]: number }, };
export type View = { 
/**
 * Updates done.
 */
iter: number, 
/**
 * Visible units m.
 */
m: number, 
/**
 * Hidden units n.
 */
n: number, 
/**
 * The model distribution over the data's distinct patterns, when enumerable.
 */
dist: Distribution | null, 
/**
 * The visible states (0/1) of the first chains (`count × m`), when the algorithm keeps
 * chains.
 */
chains: Array<number> | null, 
/**
 * The first few training rows (`count × m`, grey levels or 0/1) …
 */
originals: Array<number>, 
/**
 * … and their reconstructions E[v | E[h|v]] under the model (`count × m`).
 */
reconstructions: Array<number>, 
/**
 * The stopping times τ of the latest update's chains, as counts by τ (`taus[t]` chains
 * stopped at τ = t), when the algorithm's chains stop at a random time (UCD).
 */
taus: Array<number> | null, };
export type Distribution = { 
/**
 * p_model(v) of each distinct pattern, in the order of [`Dataset::distinct`].
 */
model: Array<number>, 
/**
 * The empirical probability of each distinct pattern (count / rows).
 */
data: Array<number>, 
/**
 * Model mass on the data set's patterns: Σ model.
 */
on: number, 
/**
 * Model mass off the data set's patterns: 1 − Σ model (never below 0).
 */
off: number, 
/**
 * log Z of the model these numbers describe.
 */
log_z: number, };
export type ErrorInfo = { 
/**
 * `invalid_option`, `invalid`, `too_large`, `parse`, `diverged` or `internal`.
 */
kind: string, 
/**
 * The option's key, for `invalid_option`.
 */
key: string | null, 
/**
 * The one-line message.
 */
message: string, };
export type SliceResult = { 
/**
 * Records made during this call: the initial record on the first call, then one every
 * `every` updates.
 */
records: Array<CoreRecord>, 
/**
 * Updates done so far.
 */
iter: number, 
/**
 * The error that stopped the lane during this call (e.g. it diverged), else null.
 */
error: ErrorInfo | null, 
/**
 * True once the lane has stopped for good; its model is then the last finite one.
 */
failed: boolean, 
/**
 * The panels' view, when asked for.
 */
view: View | null, };
export type TracedSlice = { 
/**
 * The update's phases (None when it failed).
 */
trace: Trace | null, 
/**
 * The records it made (the initial one first, when not made yet; one at an evaluation).
 */
records: Array<CoreRecord>, 
/**
 * Updates done.
 */
iter: number, 
/**
 * Why it failed (a divergence), if it did.
 */
error: ErrorInfo | null, };
export type Trace = { 
/**
 * The update this trace made (updates done after it).
 */
iter: number, 
/**
 * Visible units m.
 */
m: number, 
/**
 * Hidden units n.
 */
n: number, 
/**
 * The learning rate η of the update.
 */
lr: number, 
/**
 * Rows of the mini-batch shown (the first ones) …
 */
rows: number, 
/**
 * … their visible values, `rows × m` (after binarisation) …
 */
batch: Array<number>, 
/**
 * … and E[h|v] under the model before the update, `rows × n` (the positive phase).
 */
hidden_probs: Array<number>, 
/**
 * Chains shown (the first ones).
 */
chains: number, 
/**
 * Their visible states at the start of the negative phase and after each Gibbs sweep,
 * `chains × m` each (empty when the algorithm's sampler is not traced sweep by sweep).
 */
sweeps: Array<Array<number>>, 
/**
 * The positive statistics ⟨v_i h_j⟩ over the whole batch (E[h|v] for h).
 */
positive: Array<number>, 
/**
 * The negative statistics the gradient implies: positive − g (− λ·W for weight decay).
 */
negative: Array<number>, 
/**
 * ΔW = W after − W before.
 */
delta_w: Array<number>, };
export type LoadedSet = { 
/**
 * The name lanes use.
 */
name: string, 
/**
 * Rows.
 */
rows: number, 
/**
 * Units per row.
 */
m: number, 
/**
 * Image shape `[height, width]`.
 */
shape: [number, number] | null, 
/**
 * Whether rows have labels.
 */
labelled: boolean, };
export type AisProgress = { 
/**
 * Whether every chain has finished ([`WasmAis::result`] is then ready).
 */
done: boolean, 
/**
 * Annealing steps done, summed over the blocks of chains.
 */
doneSteps: number, 
/**
 * Annealing steps in all: blocks × (betas − 1).
 */
totalSteps: number, };
export type AisEstimate = { 
/**
 * The lane's update at which the model was copied.
 */
iter: number, 
/**
 * The data set evaluated.
 */
dataset: string, 
/**
 * The GPU adapter whose chains it ran (f32; other random streams than the CPU's), or null:
 * the CPU's (f64).
 */
gpu: string | null, 
/**
 * AIS: `log Ẑ` (an under-estimate on average). RAISE: the log Z implied by its bound,
 * `mean(−F(v)) − atll` (an over-estimate on average).
 */
log_z: number, 
/**
 * Lower end of the log Z bar (AIS: `log Z_A + log(r̂ − 3σ̂)`; RAISE: `log_z − 3·se`).
 */
log_z_lo: number, 
/**
 * Upper end of the log Z bar (AIS: `log Z_A + log(r̂ + 3σ̂)`; RAISE: `log_z + 3·se`).
 */
log_z_hi: number, 
/**
 * Average log-likelihood of the evaluated rows. AIS: `mean(−F(v)) − log Ẑ`, an
 * over-estimate on average; RAISE: the mean of the per-row reverse estimates, a stochastic
 * lower bound (Burda et al. 2015).
 */
atll: number, 
/**
 * Lower end of the ATLL bar (AIS: `mean(−F) − log_z_hi`; RAISE: `atll − 3·se`).
 */
atll_lo: number, 
/**
 * Upper end of the ATLL bar (AIS: `mean(−F) − log_z_lo`; RAISE: `atll + 3·se`).
 */
atll_hi: number, 
/**
 * `"ais"` or `"raise"`.
 */
method: string, 
/**
 * Number of chains.
 */
particles: number, 
/**
 * Number of inverse temperatures.
 */
betas: number, 
/**
 * The seed used.
 */
seed: number, 
/**
 * AIS: the data's rows. RAISE: the rows chains started from (all of them when
 * `particles ≥ rows`, else a seeded random subset); the ATLL is over all rows either way.
 */
rows: number, 
/**
 * The base model's exact `log Z_A`.
 */
base_log_z: number, 
/**
 * Whether the data were grey levels, evaluated on their 0.5-threshold binarisation.
 */
thresholded: boolean, 
/**
 * AIS only: effective sample size of the importance weights (see [`LogZEstimate::ess`]);
 * null for RAISE.
 */
ess: number | null, };
export type ExactResult = { 
/**
 * The exact average log-likelihood of the lane's (thresholded) training data.
 */
atll: number, 
/**
 * The exact log Z.
 */
logZ: number, };
export type SamplerEntry = { 
/**
 * [`SamplerInfo::name`].
 */
name: string, 
/**
 * [`SamplerInfo::title`].
 */
title: string, 
/**
 * [`SamplerInfo::paper`].
 */
paper: string, 
/**
 * [`SamplerInfo::about`].
 */
about: string, 
/**
 * The declarations of the options it reads (kind, range, label), so a shell checks their
 * inputs as it checks a lane's.
 */
options: Array<OptionSpec>, 
/**
 * Default ε_F.
 */
eps_f: number, 
/**
 * Default α.
 */
alpha: number, };
export type SamplerConfig = { 
/**
 * Registered sampler name (see [`SAMPLERS`]).
 */
sampler: string, 
/**
 * Steps between emitted samples (Gibbs sweeps, or herding fixed-point searches).
 */
k: number, 
/**
 * ε_F, the step of the fast parameters (`None`: the sampler's default).
 */
eps_f: number | null, 
/**
 * α, the decay of the fast parameters (`None`: the sampler's default).
 */
alpha: number | null, 
/**
 * Most deterministic steps of rates-herding's fixed-point search per emitted sample.
 */
cap: number, };
export type SamplerSlice = { 
/**
 * Samples emitted so far.
 */
emitted: number, 
/**
 * The 1-NN class of every sample of the slice (empty without labels).
 */
classes: Array<number>, 
/**
 * Classes visited and run lengths so far.
 */
mixing: Mixing, 
/**
 * ISL points reached in this slice.
 */
isl: Array<IslPoint>, 
/**
 * ‖W_F‖ now.
 */
fast_norm: number, };
export type IslPoint = { 
/**
 * Samples in the Parzen density.
 */
n: number, 
/**
 * Mean log-density of the test examples, in nats.
 */
isl: number, 
/**
 * The kernel's β (chosen on the validation examples, or given).
 */
beta: number, };
export type Mixing = { 
/**
 * Samples classified.
 */
samples: number, 
/**
 * Distinct classes visited.
 */
classes: number, 
/**
 * Class changes between consecutive samples.
 */
changes: number, 
/**
 * Mean length of a run of equal classes (samples / runs).
 */
mean_run: number, };
export type DriftPoint = { 
/**
 * Emitted samples since the exact start.
 */
steps: number, 
/**
 * TV(empirical law of the C chains, p).
 */
tv: number, 
/**
 * Mean TV of C fresh exact draws from p ([`FLOOR_REPS`] sets): where a correct sampler
 * stays.
 */
noise_floor: number, 
/**
 * Standard deviation of that TV across the sets.
 */
noise_sd: number, };
export type SelfTest = { 
/**
 * The sampler.
 */
sampler: string, 
/**
 * Its distances after each number of steps.
 */
points: Array<DriftPoint>, 
/**
 * Whether every distance is within 4 standard deviations of the floor.
 */
at_floor: boolean, };
export type ChainPoint = { 
/**
 * Sweeps.
 */
k: number, 
/**
 * TV(p_k, p_model).
 */
tv_model: number, 
/**
 * KL(p_k ‖ p_model) in nats.
 */
kl_model: number, 
/**
 * TV(p_k, p_data).
 */
tv_data: number, };
export type ChainResult = { 
/**
 * The lane's update at which the model was taken.
 */
iter: number, 
/**
 * One point per k = 0..=k_max.
 */
points: Array<ChainPoint>, };
export type GradSummary = { 
/**
 * ‖mean − exact‖₂ over all parameters (when exact is known).
 */
bias_norm: number | null, 
/**
 * cos∠(mean, exact) (when exact is known and both are non-zero).
 */
cosine: number | null, 
/**
 * √(Σ std_err²): the size of the mean's standard error over all parameters.
 */
std_err_norm: number, 
/**
 * ‖exact‖₂ (when known).
 */
exact_norm: number | null, };
export type BlockEstimate = { 
/**
 * "W", "b" or "c".
 */
block: string, 
/**
 * Exact gradient E_data[s] − E_model[s] (when enumerable).
 */
exact: Array<number> | null, 
/**
 * Mean of the estimates over the repetitions.
 */
mean: Array<number>, 
/**
 * Standard error of each mean entry (sample s.d. / √R).
 */
std_err: Array<number>, 
/**
 * ‖mean − exact‖₂ (when exact is known).
 */
bias_norm: number | null, 
/**
 * Largest |mean − exact| / std_err over the entries (when exact is known).
 */
max_z: number | null, 
/**
 * V = E‖f̂ − E f̂‖²_F across repetitions (UCD paper, Appendix C).
 */
variance: number, };
export type GradEstimate = { 
/**
 * Algorithm name.
 */
algo: string, 
/**
 * Chains per repetition.
 */
chains: number, 
/**
 * Repetitions.
 */
reps: number, 
/**
 * Per block.
 */
blocks: Array<BlockEstimate>, };
export type GradResult = { 
/**
 * The lane's update at which the model was taken.
 */
iter: number, 
/**
 * The seed of the repetitions (`rbm grad --seed`).
 */
seed: number, 
/**
 * Over all parameters.
 */
summary: GradSummary, 
/**
 * Per block, as `rbm grad` prints it.
 */
estimate: GradEstimate, };
export type GibbsSpectrum = { 
/**
 * λ₂ of T(v→v′) = Σ_h p(h|v) p(v′|h): the largest eigenvalue below 1 (all are ≥ 0).
 */
lambda2: number, 
/**
 * 1/(1 − λ₂), in sweeps (infinite, null in JSON, when λ₂ rounds to 1).
 */
relaxation_time: number, 
/**
 * Lanczos steps taken (products with Kᵀ K).
 */
lanczos_steps: number, };
export type GibbsBound = { 
/**
 * λ₂ ≥ this: the largest Rayleigh quotient of T over the test functions.
 */
lambda2_lower: number, 
/**
 * 1/(1 − lambda2_lower): the relaxation time is at least this many sweeps.
 */
relaxation_time_lower: number, 
/**
 * The layer whose test functions gave the bound: `"visible"` or `"hidden"`.
 */
layer: 'visible' | 'hidden', 
/**
 * Their largest degree (1 or 2).
 */
degree: number, 
/**
 * How many test functions that layer had.
 */
functions: number, };
export type MixingResult = { 
/**
 * The lane's update the model is of.
 */
iter: number, 
/**
 * λ₂ of the visible Gibbs chain and its relaxation time 1/(1 − λ₂), in sweeps, exactly
 * (null beyond m + n ≤ 24).
 */
gibbs: GibbsSpectrum | null, 
/**
 * Beyond m + n ≤ 24: a lower bound on λ₂ and on the relaxation time (null within).
 */
bound: GibbsBound | null, 
/**
 * The singular values of W, descending.
 */
singular_values: Array<number>, 
/**
 * The number of modes of p(v) (null beyond 20 visible units).
 */
modes: number | null, 
/**
 * The training rows (thresholded) projected on W's top two singular directions
 * ([`spectrum::project`]), one pair per row.
 */
data_points: Array<[number, number]>, 
/**
 * The lane's first chains (at most [`MIXING_CHAINS`]) projected likewise (none: the lane
 * keeps no chains, or they are on its GPU).
 */
chain_points: Array<[number, number]>, };
export type ExploreRequest = { 
/**
 * The seed (`--seed`), a whole number below 2^53.
 */
seed: number, 
/**
 * Trials per cell and lane (`--trials-per-cell`).
 */
trials_per_cell: number, 
/**
 * Updates per trial (`--iters`).
 */
iters: number, 
/**
 * Evaluation interval in updates (`--every`).
 */
every: number, 
/**
 * `--lrs` (absent: the preset's rates).
 */
lrs?: Array<number>, 
/**
 * `--init-sigmas`.
 */
init_sigmas?: Array<number>, 
/**
 * `--ks`.
 */
ks?: Array<number>, 
/**
 * `--ds`.
 */
ds?: Array<number>, 
/**
 * `--kprimes`.
 */
kprimes?: Array<number>, 
/**
 * `--chains`.
 */
chains?: Array<number>, 
/**
 * `--batches`.
 */
batches?: Array<number>, };
export type ExplorePlan = { 
/**
 * Trials per cell and lane.
 */
runs: number, 
/**
 * Updates per trial.
 */
iters: number, 
/**
 * Evaluation interval.
 */
every: number, 
/**
 * The initialisation's own σ (where a cell's σ is null).
 */
own_init_sigma: number, 
/**
 * The lanes every cell runs.
 */
lanes: Array<ExploreLane>, 
/**
 * The claims judged in every cell.
 */
claims: Array<string>, 
/**
 * The cells, in grid order.
 */
cells: Array<ExploreCell>, 
/**
 * How long the grid takes, by the cost model.
 */
estimate: ExploreCost, };
export type ExploreLane = { 
/**
 * The lane's label in the preset (the name its claims use).
 */
label: string, 
/**
 * Its algorithm.
 */
algo: string, };
export type ExploreCell = { 
/**
 * Its index in the grid (learning rate slowest, as `rbm explore` numbers cells).
 */
cell: number, 
/**
 * Its settings (null: the preset's own).
 */
settings: Settings, 
/**
 * Whether it is the preset's own setting.
 */
preset_point: boolean, 
/**
 * Each lane's configuration, in [`ExplorePlan::lanes`]' order, seeded with the grid's
 * seed (a trial's worker seeds it as the trial).
 */
configs: Record<string, number | string | null>[], };
export type Settings = { 
/**
 * Learning rate η.
 */
lr: number, 
/**
 * Standard deviation of the initial draws (W for the `sdcp` initialisation; W, b, c for
 * `ucd`).
 */
init_sigma: number | null, 
/**
 * Gibbs sweeps per update of the lanes that read k (CD, PCD, CG, UCD).
 */
k: number | null, 
/**
 * S-DCP / CS-DCP inner steps.
 */
d: number | null, 
/**
 * S-DCP / CS-DCP sweeps per inner step.
 */
kprime: number | null, 
/**
 * Negative chains.
 */
chains: number | null, 
/**
 * Mini-batch size.
 */
batch: number | null, };
export type ExploreCost = { 
/**
 * Seconds of training on one core.
 */
train_secs: number, 
/**
 * Seconds of the exact measurements on one core.
 */
eval_secs: number, 
/**
 * Wall seconds on the page's trial workers.
 */
wall_secs: number, };
export type ExploreVerdict = { 
/**
 * The claim's text.
 */
claim: string, 
/**
 * `holds`, `fails` or `undecided`.
 */
status: Status, 
/**
 * The verdict as yes/no (null: not decided).
 */
holds: boolean | null, 
/**
 * The numbers behind it, in words.
 */
detail: string, 
/**
 * Trials behind the medians it read.
 */
trials: number, 
/**
 * What `value` is (null: not decided).
 */
quantity: string | null, 
/**
 * The number the claim is judged by.
 */
value: number | null, 
/**
 * Its signed distance from the claim's threshold (positive: holds).
 */
margin: number | null, };
