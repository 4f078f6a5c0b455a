//! Native tests of the slow-motion trace (`Lane::step_traced`): a traced update is the lane's
//! ordinary update, bit for bit, and its phases are the update's own arrays.
#![cfg(not(target_arch = "wasm32"))]

use rbm_core::data::Dataset;
use rbm_core::model::Init;
use rbm_core::train::{Lane, LaneConfig};
use std::sync::Arc;

fn lane(algo: &str, k: usize) -> Lane {
    let cfg = LaneConfig {
        algo: algo.into(),
        hidden: 16,
        lr: 0.1,
        k,
        chains: Some(50),
        seed: Some(5),
        every: 10,
        init: Init::Ucd,
        ..Default::default()
    };
    Lane::new(cfg, Arc::new(Dataset::builtin("bas4").unwrap())).unwrap()
}

#[test]
fn a_traced_update_leaves_the_same_parameters_bit_for_bit() {
    for algo in ["cd", "pcd", "fpcd", "mf-cd", "sdcp", "cs-dcp", "cg", "ucd"] {
        let mut plain = lane(algo, 2);
        let mut traced = lane(algo, 2);
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for i in 0..40 {
            plain.run_into(1, &mut a).unwrap();
            if i % 3 == 0 {
                traced.step_traced(8, &mut b).unwrap();
            } else {
                traced.run_into(1, &mut b).unwrap();
            }
        }
        assert_eq!(a, b, "{algo}: the same records");
        assert_eq!(plain.model(), traced.model(), "{algo}: the same parameters");
        assert_eq!(
            plain.chain_states(),
            traced.chain_states(),
            "{algo}: the same chains"
        );
    }
}

#[test]
fn the_phases_are_the_updates_own() {
    let mut l = lane("pcd", 3);
    let mut out = Vec::new();
    l.run_into(5, &mut out).unwrap();
    let before = l.model().clone();
    let chains_before = l.chain_states().unwrap()[..8 * 16].to_vec();
    let t = l.step_traced(8, &mut out).unwrap();
    assert_eq!((t.iter, t.m, t.n, t.rows, t.chains), (6, 16, 16, 8, 8));
    assert_eq!(t.lr, 0.1f32 as f64);
    // The batch is the data (bas4, the full batch), E[h|v] under the model before.
    let data = Dataset::builtin("bas4").unwrap();
    assert_eq!(t.batch, data.values[..8 * 16]);
    let mut hp = vec![0.0; 8 * 16];
    before.hidden_probs(&t.batch, &mut hp);
    assert_eq!(t.hidden_probs, hp);
    // PCD's chains: where they were, then after each of the k = 3 sweeps.
    assert_eq!(t.sweeps.len(), 4);
    assert_eq!(t.sweeps[0], chains_before);
    assert_eq!(t.sweeps[3], l.chain_states().unwrap()[..8 * 16]);
    assert!(t.sweeps.iter().flatten().all(|&x| x == 0.0 || x == 1.0));
    // ΔW is the update's, and η·(positive − negative) up to rounding.
    for ((d, (a, b)), (p, q)) in t
        .delta_w
        .iter()
        .zip(l.model().w().iter().zip(before.w()))
        .zip(t.positive.iter().zip(&t.negative))
    {
        assert_eq!(*d, a - b);
        assert!((d - 0.1 * (p - q)).abs() < 1e-6, "{d} vs {}", 0.1 * (p - q));
    }
    // CD starts its chains at the batch.
    let mut cd = lane("cd", 1);
    let t = cd.step_traced(4, &mut Vec::new()).unwrap();
    assert_eq!(t.sweeps.len(), 2);
    assert_eq!(t.sweeps[0], t.batch[..4 * 16]);
}
