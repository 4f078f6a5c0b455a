//! Native speed figures (JSON lines): `cargo bench --bench speed` (also run by `npm run bench`).
//! `--quick` shortens every measurement; `--cpu` times on-CPU time instead of wall time; `--filter NAME` runs matching workloads only.

use rbm_playground::bench;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let quick = args.iter().any(|a| a == "--quick");
    let filter = args
        .iter()
        .position(|a| a == "--filter")
        .and_then(|i| args.get(i + 1))
        .cloned();
    let secs = if quick { 0.3 } else { 2.0 };
    // `--cpu`: time on CPU of this thread (Linux schedstat) instead of wall time, for
    // comparing kernels while other processes load the machine.
    let cpu = args.iter().any(|a| a == "--cpu");
    let t0 = Instant::now();
    let now = move || {
        if cpu {
            let s = std::fs::read_to_string("/proc/thread-self/schedstat").unwrap_or_default();
            s.split_whitespace()
                .next()
                .and_then(|x| x.parse::<f64>().ok())
                .unwrap_or(0.0)
                * 1e-9
        } else {
            t0.elapsed().as_secs_f64()
        }
    };
    let want = |name: &str| filter.as_deref().is_none_or(|f| name.contains(f));
    let print = |name: &str, unit: &str, r: rbm_playground::Result<f64>| match r {
        Ok(x) => println!(
            "{{\"target\":\"native\",\"bench\":\"{name}\",\"value\":{x:.1},\"unit\":\"{unit}\"}}"
        ),
        Err(e) => println!("{{\"target\":\"native\",\"bench\":\"{name}\",\"error\":\"{e}\"}}"),
    };
    for algo in rbm_playground::train::ALGORITHMS.iter().map(|a| a.name) {
        let name = format!("bas4_{algo}_updates");
        if want(&name) {
            print(&name, "updates/s", bench::bas4_updates(algo, &now, secs));
        }
    }
    for algo in ["cd", "pcd", "sdcp", "cs-dcp", "cg"] {
        let name = format!("shifting_bar_{algo}_updates");
        if want(&name) {
            print(
                &name,
                "updates/s",
                bench::small_updates("shifting-bar", algo, &now, secs),
            );
        }
    }
    if want("gibbs_784x500") {
        print(
            "gibbs_784x500_b100",
            "sweeps/s",
            bench::gibbs_sweeps(784, 500, 100, &now, secs),
        );
    }
    if want("exact_bas4") {
        print(
            "exact_bas4_evals",
            "evaluations/s",
            bench::bas4_exact_evals(&now, secs),
        );
    }
    if want("exact_log_z") {
        let n = if quick { 16 } else { 20 };
        print(
            &format!("exact_log_z_784x{n}"),
            "s",
            bench::exact_log_z_secs(784, n, &now),
        );
    }
}
