//! The parameter step shared by every algorithm: θ ← θ + η·(pos − neg) (docs/algorithms.md §4),
//! with optional L2 weight decay on W and classical momentum (off in the papers' runs).

use crate::model::{Params, Rbm, Stats};

/// Gradient assembly and the update rule.
#[derive(Clone, Debug)]
pub struct Optimizer {
    /// L2 weight-decay coefficient on W.
    pub weight_decay: f32,
    /// Momentum coefficient in [0, 1).
    pub momentum: f32,
    velocity: Option<Params<f32>>,
    grad: Params<f32>,
}

impl Optimizer {
    /// An optimizer for an m×n model.
    pub fn new(m: usize, n: usize, weight_decay: f32, momentum: f32) -> Optimizer {
        Optimizer {
            weight_decay,
            momentum,
            velocity: (momentum != 0.0).then(|| Params::zeros(m, n)),
            grad: Params::zeros(m, n),
        }
    }

    /// New coefficients for the next [`Optimizer::step`] (a live edit of a running lane).
    /// Momentum switched on starts from zero velocity, as a lane built with it does; switched
    /// off, the velocity is dropped.
    pub fn set_coefficients(&mut self, weight_decay: f32, momentum: f32) {
        self.weight_decay = weight_decay;
        self.momentum = momentum;
        if momentum == 0.0 {
            self.velocity = None;
        } else if self.velocity.is_none() {
            let (m, n) = (self.grad.b.len(), self.grad.c.len());
            self.velocity = Some(Params::zeros(m, n));
        }
    }

    /// The gradient estimate g = mean(pos) − mean(neg) − λ·W of the last [`Optimizer::step`].
    pub fn grad(&self) -> &Params<f32> {
        &self.grad
    }

    /// Computes g from `pos` and `neg` and applies θ ← θ + η·g (or the momentum form).
    pub fn step(&mut self, model: &mut Rbm, pos: &Stats, neg: &Stats, lr: f32) {
        let (kp, kn) = (1.0 / pos.count.max(1.0), 1.0 / neg.count.max(1.0));
        if self.velocity.is_none() {
            // One pass: the same operations as below, each weight read and written once.
            let wd = self.weight_decay;
            let grad = &mut self.grad;
            model.edit(|w, b, c| {
                for (((t, g), p), q) in [w, b, c]
                    .into_iter()
                    .zip(grad.blocks_mut())
                    .zip(pos.sum.blocks())
                    .zip(neg.sum.blocks())
                {
                    let it = t.iter_mut().zip(g.iter_mut()).zip(p.1).zip(q.1);
                    if p.0 == "W" && wd != 0.0 {
                        it.for_each(|(((t, g), p), q)| {
                            *g = p * kp - q * kn - wd * *t;
                            *t += lr * *g;
                        });
                    } else {
                        it.for_each(|(((t, g), p), q)| {
                            *g = p * kp - q * kn;
                            *t += lr * *g;
                        });
                    }
                }
            });
            return;
        }
        for ((g, p), q) in self
            .grad
            .blocks_mut()
            .into_iter()
            .zip(pos.sum.blocks())
            .zip(neg.sum.blocks())
        {
            g.iter_mut()
                .zip(p.1.iter().zip(q.1))
                .for_each(|(g, (p, q))| *g = p * kp - q * kn);
        }
        if self.weight_decay != 0.0 {
            let wd = self.weight_decay;
            self.grad
                .w
                .iter_mut()
                .zip(model.w())
                .for_each(|(g, w)| *g -= wd * w);
        }
        self.apply(model, lr);
    }

    /// Applies θ ← θ + η·g for the stored gradient.
    fn apply(&mut self, model: &mut Rbm, lr: f32) {
        let grad = &self.grad;
        match &mut self.velocity {
            None => model.edit(|w, b, c| {
                for (t, g) in [w, b, c].into_iter().zip(grad.blocks()) {
                    t.iter_mut().zip(g.1).for_each(|(t, g)| *t += lr * g);
                }
            }),
            Some(vel) => {
                let mu = self.momentum;
                for (v, g) in vel.blocks_mut().into_iter().zip(grad.blocks()) {
                    v.iter_mut()
                        .zip(g.1)
                        .for_each(|(v, g)| *v = mu * *v + lr * g);
                }
                model.edit(|w, b, c| {
                    for (t, v) in [w, b, c].into_iter().zip(vel.blocks()) {
                        t.iter_mut().zip(v.1).for_each(|(t, v)| *t += v);
                    }
                })
            }
        }
    }
}
