//! The page's claims explorer natively ([`rbm_playground::explore`]): a grid's plan is the
//! core's — its cells numbered as `rbm explore` numbers them, the preset's own point marked, each
//! lane's configuration the cell study's, reading back through the page's configuration path
//! (σ included) — bad grids are refused naming the setting, and a cell is judged by the core's
//! `judge` on its bands.
#![cfg(not(target_arch = "wasm32"))]

use rbm_core::experiments::claims::{BandPoint, LaneBand};
use rbm_core::experiments::explore::{cell_study, Grid, GridRequest};
use rbm_core::experiments::find_preset;
use rbm_core::experiments::trials::StudyRequest;
use rbm_core::train::LaneConfig;
use rbm_playground::explore::{judge_cell, plan, ExploreRequest};
use std::sync::Arc;

fn request() -> ExploreRequest {
    ExploreRequest {
        seed: 3.0,
        trials_per_cell: 2,
        iters: 40,
        every: 20,
        lrs: Some(vec![0.1, 0.3]),
        init_sigmas: Some(vec![0.01, 0.5]),
        ..ExploreRequest::default()
    }
}

#[test]
fn a_plan_is_the_cores_grid_with_each_cells_lane_configurations() {
    let p = find_preset("sdcp-bas3").unwrap();
    let req = request();
    let out = plan("sdcp-bas3", &req, 2).unwrap();
    assert_eq!((out.runs, out.iters, out.every), (2, 40, 20));
    assert_eq!(out.cells.len(), 4);
    assert_eq!(out.lanes.len(), p.lanes.len());
    assert_eq!(out.claims.len(), p.claims.len());
    assert_eq!(out.own_init_sigma, 0.01);
    // Only (0.3, 0.01) is the preset's own point (0.3 is one of its rates, 0.01 its σ).
    let own: Vec<bool> = out.cells.iter().map(|c| c.preset_point).collect();
    assert_eq!(own, [false, false, true, false]);
    assert!(out.estimate.wall_secs > 0.0 && out.estimate.train_secs > 0.0);
    let grid = Grid::new(
        p,
        &GridRequest {
            lrs: req.lrs.clone(),
            init_sigmas: req.init_sigmas.clone(),
            ..GridRequest::default()
        },
    )
    .unwrap();
    let base = StudyRequest {
        runs: Some(2),
        iters: Some(40),
        every: Some(20),
        ..StudyRequest::default()
    };
    let data = Arc::new(p.dataset().unwrap());
    for c in &out.cells {
        assert_eq!(c.settings, grid.cell(c.cell));
        let st = cell_study(p, &base, &c.settings, 3, data.clone(), None).unwrap();
        for (g, obj) in c.configs.iter().enumerate() {
            let back = LaneConfig::from_object(obj.as_object().unwrap()).unwrap();
            let want = st.lane_config(g, 3).unwrap();
            assert_eq!(
                serde_json::to_value(&back).unwrap(),
                serde_json::to_value(&want).unwrap(),
                "cell {} lane {g}",
                c.cell
            );
            assert_eq!(back.init_sigma, c.settings.init_sigma);
        }
    }
}

#[test]
fn bad_grids_are_refused_naming_the_setting() {
    let mut r = request();
    r.lrs = Some(vec![0.1, f64::NAN]);
    assert_eq!(plan("sdcp-bas3", &r, 2).unwrap_err().key(), Some("lrs"));
    let mut r = request();
    r.init_sigmas = Some(vec![-1.0]);
    assert_eq!(
        plan("sdcp-bas3", &r, 2).unwrap_err().key(),
        Some("init-sigmas")
    );
    let mut r = request();
    r.trials_per_cell = 0;
    assert_eq!(plan("sdcp-bas3", &r, 2).unwrap_err().key(), Some("runs"));
    let mut r = request();
    r.seed = 0.5;
    assert_eq!(plan("sdcp-bas3", &r, 2).unwrap_err().key(), Some("seed"));
    assert!(plan("nope", &request(), 2).is_err());
}

#[test]
fn a_cell_is_judged_by_the_cores_judge() {
    let p = find_preset("sdcp-bas3").unwrap();
    let bands: Vec<LaneBand> = p
        .lanes
        .iter()
        .enumerate()
        .map(|(i, l)| LaneBand {
            label: l.label.to_string(),
            trials: 1,
            points: [0u64, 20, 40]
                .iter()
                .map(|&iter| BandPoint {
                    iter,
                    median: -6.0 + iter as f64 * 0.01 * (i + 1) as f64,
                    stats: Default::default(),
                })
                .collect(),
        })
        .collect();
    let v = judge_cell("sdcp-bas3", &bands, 40).unwrap();
    let want =
        rbm_core::experiments::explore::judge(p.claims, &bands, 40, p.dataset().unwrap().bound());
    assert_eq!(v.len(), want.len());
    for (a, b) in v.iter().zip(&want) {
        assert_eq!(
            (a.claim.as_str(), a.holds, &a.detail),
            (b.claim, b.holds, &b.detail)
        );
        let m = b.measured.as_ref();
        assert_eq!(a.value, m.map(|m| m.value).filter(|x| x.is_finite()));
        assert_eq!(a.margin, m.map(|m| m.margin).filter(|x| x.is_finite()));
    }
    assert!(v.iter().any(|x| x.holds.is_some()), "some claim is decided");
}
