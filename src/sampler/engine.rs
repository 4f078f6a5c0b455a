//! The rates-FPCD paper's samplers (Breuleux, Bengio & Vincent 2011; docs/algorithms.md §5) on
//! an engine ([`crate::engine::Engine`]): one definition of Gibbs, rates-FPCD, rates-herding and
//! sample penalisation in the engine's words — "sweep the chain k times under θ⁻ = θ + θ_F, add
//! s(x⁻) with E[h|x⁻], move θ_F" — that runs wherever the engine computes: the GPU engine of
//! `crates/gpu` (`rbm sample --device gpu`), and the CPU engine (below), where Gibbs gives the
//! CPU samplers' samples bit for bit and herding their samples (tested).
//!
//! The engine's training operations do most of it ([`Engine::sweeps`], [`Engine::chain_stats`],
//! [`Engine::set_sum`], [`Engine::w_norm`]); [`SamplerEngine`] adds the few a sampler needs
//! beyond training: the fast parameters' update `θ_F ← α·θ_F + ε_F·(R − s(x⁻))`, herding's
//! deterministic steps to a fixed point, and a store of emitted samples read back in one go.
//!
//! The CPU's samplers ([`super::gibbs`], [`super::fast`]) are the same definitions kept in a
//! sparse lazy form on the host (θ_F as A + σ·B + ρ·R, sums over the active units only), whose
//! bits the goldens guard; here θ⁻ is formed densely once per emitted sample, so the numbers
//! agree with the CPU's within f32 rounding, not bit for bit, and the draws are the engine's own
//! stream (Philox on the GPU).
//!
//! Chains: Gibbs runs any number of independent chains at once (one batch of the engine: the
//! no-drift test starts thousands from exact draws); the fast-parameter samplers run one
//! persistent chain, as the paper's — each chain would need its own θ_F.

use super::{find, SamplerConfig};
use crate::engine::Engine;
use crate::error::{Error, Result};
use crate::model::{Params, Rbm};

/// What a sampler needs of an engine beyond the training operations (docs/algorithms.md §5).
pub trait SamplerEngine: Engine {
    /// Scratch of herding's fixed-point search and of the emitted samples' store.
    type Work: Send;

    /// The engine's scratch for chains of `model`'s shape, room for `capacity` emitted rows of
    /// `chains` chains each.
    fn work(model: &Self::Model, chains: usize, capacity: usize) -> Self::Work;

    /// `p` (of `model`'s shape) where the engine computes: the rates R.
    fn params_of(model: &Self::Model, p: &Params<f32>) -> Self::Params;

    /// The fast-parameter update of the rates-FPCD paper, `θ_F ← α·θ_F + ε_F·(R − s/count)`
    /// on every block (W, b, c), with `s` the summed statistics (x·E[h|x]ᵀ, x, E[h|x]) of the
    /// emitted states and R = 0 where `rates` is None.
    fn fast_update(
        fast: &mut Self::Params,
        rates: Option<&Self::Params>,
        s: &Self::Stats,
        alpha: f32,
        eps_f: f32,
    );

    /// Herding's deterministic steps h = 1{c + Wᵀx > 0}, x = 1{b + W h > 0} under `model`
    /// from the chains' states until x is a fixed point or `cap` steps were made, then E[h|x]
    /// of the final states (as [`Engine::sweeps`] leaves it).
    fn herd(model: &Self::Model, chains: &mut Self::Chains, work: &mut Self::Work, cap: usize);

    /// Appends the chains' visible states to the store (a copy where the engine computes).
    fn emit(chains: &Self::Chains, work: &mut Self::Work);

    /// The stored states since the last call, emitted sample after sample, chains in order
    /// within each (waits for the engine); the store is empty after.
    fn take(work: &mut Self::Work) -> Vec<f32>;

    /// Rows the store holds before it must be taken.
    fn capacity(work: &Self::Work) -> usize;
}

/// How the chain moves between emitted samples.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    /// Plain block Gibbs under θ, `k` sweeps ([`super::gibbs`]).
    Gibbs { k: usize },
    /// Under θ⁻ = θ + θ_F with the fast update after each sample ([`super::fast`]).
    Fast {
        step: super::fast::Step,
        eps_f: f32,
        alpha: f32,
    },
}

/// A sampler of [`super::SAMPLERS`] on engine `E`: chains under θ (Gibbs) or under θ + θ_F
/// with the rates-FPCD paper's update of θ_F after every emitted sample.
pub struct EngineSampler<E: SamplerEngine> {
    kind: Kind,
    /// θ.
    model: E::Model,
    /// θ⁻ = θ + θ_F, the fast parameters and R (the fast-parameter samplers).
    minus: Option<E::Model>,
    fast: Option<E::Params>,
    rates: Option<E::Params>,
    stats: E::Stats,
    chains: E::Chains,
    count: usize,
    m: usize,
    rng: E::Rng,
    work: E::Work,
    /// Rows emitted into the store and not taken yet.
    stored: usize,
}

/// Rows of emitted samples an engine's store keeps before they are read back: about 4 MB of
/// f32, at least one emitted sample.
fn store_rows(m: usize, chains: usize) -> usize {
    ((1 << 20) / (m * chains).max(1)).clamp(1, 4096)
}

impl<E: SamplerEngine> EngineSampler<E> {
    /// The sampler `cfg` of `model` on `dev`, its `count` chains starting at `starts` (count × m,
    /// 0/1), with the rates R it needs, its draws from the stream (`seed`, `lane`) of the engine.
    /// The fast-parameter samplers take one chain.
    pub fn new(
        dev: &E::Device,
        model: &Rbm,
        cfg: &SamplerConfig,
        rates: Option<&Params<f32>>,
        starts: &[f32],
        seed: u64,
        lane: u64,
    ) -> Result<EngineSampler<E>> {
        cfg.validate()?;
        let info = find(&cfg.sampler)?;
        let m = model.m();
        if m == 0 || starts.is_empty() || !starts.len().is_multiple_of(m) {
            return Err(Error::Invalid(format!(
                "the chains' starts have {} values, not a multiple of the model's {m} visible units",
                starts.len()
            )));
        }
        let count = starts.len() / m;
        let kind = match info.name {
            "gibbs" => Kind::Gibbs { k: cfg.k },
            "rates-fpcd" | "sp" => Kind::Fast {
                step: super::fast::Step::Gibbs { k: cfg.k },
                eps_f: cfg.eps_f()? as f32,
                alpha: cfg.alpha()? as f32,
            },
            "rates-herding" => Kind::Fast {
                step: super::fast::Step::Herding { cap: cfg.cap },
                eps_f: cfg.eps_f()? as f32,
                alpha: cfg.alpha()? as f32,
            },
            other => {
                return Err(Error::Invalid(format!(
                    "the sampler {other} does not run on this engine"
                )))
            }
        };
        if matches!(kind, Kind::Fast { .. }) && count != 1 {
            return Err(Error::Invalid(format!(
                "{} runs one persistent chain (its fast parameters are the chain's own); got {count}",
                info.title
            )));
        }
        if info.needs_rates && rates.is_none() {
            return Err(Error::Invalid(format!(
                "{} needs the rates of a training set",
                info.title
            )));
        }
        if let Some(r) = rates {
            if r.w.len() != m * model.n() || r.b.len() != m || r.c.len() != model.n() {
                return Err(Error::Invalid(
                    "the rates are not of the model's shape".into(),
                ));
            }
        }
        let theta = E::upload(dev, model);
        // SP's rates are 0 (the paper): R is used by the samplers that declare it.
        let rates = rates
            .filter(|_| info.needs_rates)
            .map(|r| E::params_of(&theta, r));
        let fast = matches!(kind, Kind::Fast { .. }).then(|| E::zeros(&theta));
        let minus = fast.as_ref().map(|_| E::copy(&theta));
        Ok(EngineSampler {
            kind,
            stats: E::stats(&theta),
            chains: E::chains(&theta, starts, count),
            work: E::work(&theta, count, store_rows(m, count)),
            rng: E::rng(dev, seed, lane),
            model: theta,
            minus,
            fast,
            rates,
            count,
            m,
            stored: 0,
        })
    }

    /// Advances every chain to its next emitted sample: `k` sweeps under θ (Gibbs), or the
    /// chain's steps under θ⁻ then `θ_F ← α·θ_F + ε_F·(R − s(x⁻))` with E[h|x⁻] under θ⁻,
    /// and θ⁻ formed again (as the CPU's [`super::fast::FastChain::next`]).
    pub fn next(&mut self) {
        match self.kind {
            Kind::Gibbs { k } => E::sweeps(&self.model, &mut self.chains, &mut self.rng, k),
            Kind::Fast { step, eps_f, alpha } => {
                let minus = self.minus.as_mut().expect("made with the fast parameters");
                let fast = self.fast.as_mut().expect("made with θ⁻");
                match step {
                    super::fast::Step::Gibbs { k } => {
                        E::sweeps(minus, &mut self.chains, &mut self.rng, k)
                    }
                    super::fast::Step::Herding { cap } => {
                        E::herd(minus, &mut self.chains, &mut self.work, cap)
                    }
                }
                E::chain_stats(&self.chains, &mut self.stats);
                E::fast_update(fast, self.rates.as_ref(), &self.stats, alpha, eps_f);
                E::set_sum(minus, &self.model, fast);
            }
        }
    }

    /// The next `samples` emitted samples of every chain: `samples × chains × m` values (0/1),
    /// sample after sample, chains in order within each; the engine's store is read back once
    /// per [`SamplerEngine::capacity`] rows.
    pub fn samples(&mut self, samples: usize) -> Vec<f32> {
        let mut out = Vec::with_capacity(samples * self.count * self.m);
        let cap = E::capacity(&self.work);
        for _ in 0..samples {
            self.next();
            E::emit(&self.chains, &mut self.work);
            self.stored += 1;
            if self.stored == cap {
                out.extend(E::take(&mut self.work));
                self.stored = 0;
            }
        }
        if self.stored > 0 {
            out.extend(E::take(&mut self.work));
            self.stored = 0;
        }
        out
    }

    /// Rows the engine's store has room for before it must be taken ([`Self::drain`]).
    pub fn room(&self) -> usize {
        E::capacity(&self.work) - self.stored
    }

    /// Advances every chain to its next emitted sample up to `samples` times, as
    /// [`Self::samples`] does, and keeps the samples in the engine's store without reading them
    /// back: at most [`Self::room`] of them; the number emitted. A shell that must not wait for
    /// the engine (a browser's worker and its GPU) takes the store with [`Self::drain`] — a copy
    /// on its way back — while the chains move on: the same samples as [`Self::samples`] for the
    /// same seed.
    pub fn emit(&mut self, samples: usize) -> usize {
        let count = samples.min(self.room());
        for _ in 0..count {
            self.next();
            E::emit(&self.chains, &mut self.work);
            self.stored += 1;
        }
        count
    }

    /// Hands the engine's store to `f`, with what the chains move under now, to take the
    /// emitted rows out its own way (the GPU's: a copy it does not wait for); the store counts
    /// as empty after, and `f` must leave it so.
    pub fn drain<T>(&mut self, f: impl FnOnce(SamplerParts<'_, E>) -> T) -> T {
        self.stored = 0;
        f(SamplerParts {
            model: self.minus.as_ref().unwrap_or(&self.model),
            chains: &self.chains,
            fast: self.fast.as_ref(),
            work: &mut self.work,
        })
    }

    /// The chains' current visible states (count × m; a copy back where the engine computes).
    pub fn states(&self) -> &[f32] {
        E::chain_states(&self.chains)
    }

    /// ‖W_F‖, the Frobenius norm of the fast weights (0 for Gibbs), as the CPU's
    /// [`super::Sampler::fast_norm`].
    pub fn fast_norm(&self) -> f64 {
        self.fast.as_ref().map_or(0.0, E::w_norm)
    }

    /// θ_F where the engine keeps it (None for Gibbs).
    pub fn fast(&self) -> Option<&E::Params> {
        self.fast.as_ref()
    }

    /// The chains it runs.
    pub fn chains(&self) -> usize {
        self.count
    }
}

/// What an [`EngineSampler`] lends [`EngineSampler::drain`]: the parameters its chains move
/// under now (θ⁻ = θ + θ_F for the fast-parameter samplers, θ for Gibbs), the chains (their
/// last visible state is the last sample; their hidden state the h it was drawn from), θ_F, and
/// the store of emitted samples.
pub struct SamplerParts<'a, E: SamplerEngine> {
    /// θ⁻, or θ for Gibbs.
    pub model: &'a E::Model,
    /// The chains.
    pub chains: &'a E::Chains,
    /// θ_F (None for Gibbs).
    pub fast: Option<&'a E::Params>,
    /// The store of the samples emitted since the last drain.
    pub work: &'a mut E::Work,
}

/// The CPU engine's scratch of a sampler: the emitted rows.
pub struct CpuWork {
    store: Vec<f32>,
    capacity: usize,
}

/// The samplers on the CPU engine: the same definition on the host, a check of it without a
/// GPU (`rbm sample` on the CPU keeps the sparse samplers of [`super::gibbs`] and
/// [`super::fast`]). Gibbs gives their samples bit for bit (the same sweeps and stream).
impl SamplerEngine for crate::engine::Cpu {
    type Work = CpuWork;

    fn work(_: &Rbm, _chains: usize, capacity: usize) -> CpuWork {
        CpuWork {
            store: Vec::new(),
            capacity,
        }
    }

    fn params_of(_: &Rbm, p: &Params<f32>) -> Params<f32> {
        p.clone()
    }

    fn fast_update(
        fast: &mut Params<f32>,
        rates: Option<&Params<f32>>,
        s: &crate::model::Stats,
        alpha: f32,
        eps_f: f32,
    ) {
        let k = 1.0 / s.count.max(1.0);
        let blocks = [
            (&mut fast.w, &s.sum.w, rates.map(|r| &r.w)),
            (&mut fast.b, &s.sum.b, rates.map(|r| &r.b)),
            (&mut fast.c, &s.sum.c, rates.map(|r| &r.c)),
        ];
        for (f, s, r) in blocks {
            for (e, (x, &sx)) in f.iter_mut().zip(s.iter()).enumerate() {
                let r = r.map_or(0.0, |r| r[e]);
                *x = alpha * *x + eps_f * (r - sx * k);
            }
        }
    }

    fn herd(
        model: &Rbm,
        chains: &mut crate::engine::cpu::ChainSet,
        _work: &mut CpuWork,
        cap: usize,
    ) {
        let (m, n) = (model.m(), model.n());
        let mut v = chains.chains().v().to_vec();
        let (mut h, mut x) = (vec![0.0; n], vec![0.0; m]);
        for row in v.chunks_exact_mut(m) {
            for _ in 0..cap {
                model.hidden_pre(row, &mut h);
                h.iter_mut().for_each(|a| *a = f32::from(*a > 0.0));
                model.visible_pre(&h, &mut x);
                x.iter_mut().for_each(|a| *a = f32::from(*a > 0.0));
                let fixed = x == row;
                row.copy_from_slice(&x);
                if fixed {
                    break;
                }
            }
        }
        let c = chains.chains_mut();
        c.restart(&v, m);
        c.finish(model);
    }

    fn emit(chains: &crate::engine::cpu::ChainSet, work: &mut CpuWork) {
        work.store.extend_from_slice(chains.chains().v());
    }

    fn take(work: &mut CpuWork) -> Vec<f32> {
        std::mem::take(&mut work.store)
    }

    fn capacity(work: &CpuWork) -> usize {
        work.capacity
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Cpu;
    use crate::rng::{stream, uniform, Purpose};

    fn cfg(name: &str, k: usize, eps_f: Option<f64>, alpha: Option<f64>) -> SamplerConfig {
        SamplerConfig {
            sampler: name.into(),
            k,
            eps_f,
            alpha,
            ..SamplerConfig::default()
        }
    }

    /// The CPU's sparse sampler of `c`: `count` samples from `start` on stream (seed, 0).
    fn cpu_samples(
        model: &Rbm,
        c: &SamplerConfig,
        rates: Option<&Params<f32>>,
        start: &[f32],
        seed: u64,
        count: usize,
    ) -> (Vec<f32>, f64) {
        let mut s = c.build(model, rates, start).unwrap();
        let mut r = stream(seed, 0, Purpose::Sampling);
        let out = (0..count)
            .flat_map(|_| {
                s.next(&mut r);
                s.visible().to_vec()
            })
            .collect();
        (out, s.fast_norm())
    }

    fn rates(m: usize, n: usize) -> Params<f32> {
        let mut rng = stream(8, 0, Purpose::Aux);
        let mut r = Params::zeros(m, n);
        for blk in r.blocks_mut() {
            blk.iter_mut().for_each(|x| *x = uniform(&mut rng));
        }
        r
    }

    /// On the CPU engine the one definition gives the CPU samplers' samples: Gibbs bit for bit
    /// (the same sweeps on the same stream), and rates-FPCD and SP with ε_F = 0 too (θ_F stays 0,
    /// so θ⁻ = θ); on a 12×7 model (rows) and a 6×4 one (the engine's patterns).
    #[test]
    fn the_engine_samplers_on_the_cpu_engine_are_the_cpu_samplers() {
        for (m, n) in [(12, 7), (6, 4)] {
            let model = Rbm::random(m, n, 0.8, 5).unwrap();
            let r = rates(m, n);
            let start: Vec<f32> = (0..m).map(|i| f32::from(i % 3 == 0)).collect();
            for c in [
                cfg("gibbs", 3, None, None),
                cfg("rates-fpcd", 2, Some(0.0), None),
                cfg("sp", 1, Some(0.0), Some(0.5)),
            ] {
                let (want, _) =
                    cpu_samples(&model, &cfg("gibbs", c.k, None, None), None, &start, 9, 50);
                let mut s =
                    EngineSampler::<Cpu>::new(&(), &model, &c, Some(&r), &start, 9, 0).unwrap();
                assert_eq!(s.samples(50), want, "{} on {m}×{n}", c.sampler);
            }
        }
    }

    /// Herding is deterministic: on the CPU engine the definition gives the sparse sampler's
    /// samples and ‖W_F‖ (θ⁻ formed densely rather than lazily, equal unless a pre-activation
    /// falls within rounding of 0).
    #[test]
    fn herding_on_the_cpu_engine_is_the_cpu_sampler() {
        let (m, n) = (12, 7);
        let model = Rbm::random(m, n, 0.8, 5).unwrap();
        let r = rates(m, n);
        let start: Vec<f32> = (0..m).map(|i| f32::from(i % 3 == 0)).collect();
        for (eps, cap) in [(0.0, 1000), (0.05, 10), (0.2, 2)] {
            let c = SamplerConfig {
                cap,
                ..cfg("rates-herding", 1, Some(eps), None)
            };
            let (want, norm) = cpu_samples(&model, &c, Some(&r), &start, 1, 60);
            let mut s = EngineSampler::<Cpu>::new(&(), &model, &c, Some(&r), &start, 1, 0).unwrap();
            assert_eq!(s.samples(60), want, "ε_F {eps}, cap {cap}");
            assert!((s.fast_norm() - norm).abs() < 1e-4 * (1.0 + norm));
        }
    }
}
