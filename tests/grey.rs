//! Grey-level data (MNIST-style): the binarisation the papers use — a fresh Bernoulli draw per
//! use — or a fixed threshold, and exact curves computed on the thresholded data.

use rbm_core::data::mnist::Images;
use rbm_core::data::{Binarize, Dataset};
use rbm_core::eval::exact;
use rbm_core::rng::{stream, Purpose};
use rbm_core::train::{Lane, LaneConfig};
use std::sync::Arc;

/// Sampling gives each unit 1 with its grey level as probability (within 5 standard errors),
/// thresholding gives 1 exactly where the level is ≥ 0.5.
#[test]
fn sampling_matches_the_grey_levels_and_threshold_cuts_at_one_half() {
    let levels = [0.0f32, 0.1, 0.3, 0.5, 0.7, 0.95, 1.0];
    let draws = 20_000;
    let mut rng = stream(3, 0, Purpose::Data);
    let mut ones = [0u32; 7];
    for _ in 0..draws {
        let mut v = levels;
        Binarize::Sample.apply(&mut v, &mut rng);
        for (o, x) in ones.iter_mut().zip(v) {
            assert!(x == 0.0 || x == 1.0);
            *o += x as u32;
        }
    }
    for (&p, &o) in levels.iter().zip(&ones) {
        let f = o as f64 / draws as f64;
        let se = (p as f64 * (1.0 - p as f64) / draws as f64)
            .sqrt()
            .max(1e-9);
        assert!((f - p as f64).abs() <= 5.0 * se, "level {p}: frequency {f}");
    }
    let mut v = levels;
    Binarize::Threshold.apply(&mut v, &mut rng);
    assert_eq!(v, [0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0]);
}

fn grey_data() -> Arc<Dataset> {
    let im = Images {
        height: 3,
        width: 3,
        pixels: (0..40 * 9).map(|i| ((i * 97) % 256) as u8).collect(),
        labels: None,
    };
    Arc::new(im.all("grey"))
}

/// A lane on grey data trains, its exact curve is the thresholded data's log-likelihood, and
/// sampling and thresholding give different runs from the same seed.
#[test]
fn lanes_train_on_grey_data_and_evaluate_the_thresholded_data() {
    let data = grey_data();
    assert!(!data.is_binary());
    let run = |binarize: Binarize| {
        let cfg = LaneConfig {
            algo: "pcd".into(),
            hidden: 4,
            batch: Some(10),
            every: 5,
            seed: Some(9),
            binarize,
            ..LaneConfig::default()
        };
        let mut lane = Lane::new(cfg, data.clone()).unwrap();
        let recs = lane.run(20).unwrap();
        let last = recs.last().unwrap().clone();
        let want = exact::evaluate(lane.model(), &data.thresholded()).unwrap();
        assert_eq!(last.atll, Some(want.atll));
        assert_eq!(last.log_z, Some(want.log_z));
        recs
    };
    let (s, t) = (run(Binarize::Sample), run(Binarize::Threshold));
    assert_ne!(s, t);
    assert_eq!(run(Binarize::Sample), s, "same seed, same numbers");
}

/// The paper protocol (`rbm_core::data::protocol`): one seeded binarisation, the same bits for
/// the same seed and data, other bits for another seed or other data, each grey level on with
/// its own probability, binary values and binary data unchanged.
#[test]
fn the_paper_protocol_binarises_once_per_seed() {
    use rbm_core::data::protocol::{fixed_binarization, Protocol};
    let data = Dataset::synthetic_digits(300, 2);
    let a = fixed_binarization(&data, 1);
    assert!(a.is_binary() && (a.m, a.rows()) == (data.m, data.rows()));
    assert_eq!(a.values, fixed_binarization(&data, 1).values);
    assert_eq!(
        Protocol::parse("paper:1").unwrap().apply(&data).values,
        a.values
    );
    let b = fixed_binarization(&data, 2);
    let differ = a
        .values
        .iter()
        .zip(&b.values)
        .filter(|(x, y)| x != y)
        .count();
    assert!(differ > 1000, "{differ} bits differ");
    // Another data set with the same seed draws other numbers: the first 100 rows alone give
    // other bits than the first 100 rows of the whole set.
    let head = Dataset {
        values: data.values[..100 * data.m].to_vec(),
        ..data.clone()
    };
    assert_ne!(
        fixed_binarization(&head, 1).values,
        a.values[..100 * data.m]
    );
    // 0 stays 0, 1 stays 1, a grey level x is on with probability x (within 5 standard errors).
    let (mut sum_p, mut var, mut on) = (0.0f64, 0.0f64, 0.0f64);
    for (&x, &y) in data.values.iter().zip(&a.values) {
        if x == 0.0 || x == 1.0 {
            assert_eq!(x, y);
        } else {
            let p = f64::from(x);
            sum_p += p;
            var += p * (1.0 - p);
            on += f64::from(y);
        }
    }
    assert!(
        (on - sum_p).abs() <= 5.0 * var.sqrt(),
        "{on} on, {sum_p} expected"
    );
    let bas = Dataset::builtin("bas4").unwrap();
    assert_eq!(fixed_binarization(&bas, 1).values, bas.values);
}

/// Under the paper protocol a lane trains and evaluates on the same fixed bits: its exact curve
/// is the protocol's data's log-likelihood, not the thresholded one.
#[test]
fn training_and_evaluation_see_the_protocols_bits() {
    use rbm_core::data::protocol::fixed_binarization;
    let grey = grey_data();
    let data = Arc::new(fixed_binarization(&grey, 9));
    let cfg = LaneConfig {
        algo: "pcd".into(),
        hidden: 4,
        batch: Some(10),
        every: 5,
        seed: Some(1),
        ..Default::default()
    };
    let mut lane = Lane::new(cfg, data.clone()).unwrap();
    lane.run(10).unwrap();
    let rec = lane.record().unwrap();
    let model = lane.model().clone();
    let log_z = exact::log_z(&model).unwrap();
    let on_bits = exact::average_log_likelihood(&model, &data, log_z).unwrap();
    let thresholded = exact::average_log_likelihood(&model, &grey.thresholded(), log_z).unwrap();
    let atll = rec.atll.unwrap();
    assert!((atll - on_bits).abs() < 1e-9, "{atll} vs {on_bits}");
    assert!((atll - thresholded).abs() > 1e-6);
}
