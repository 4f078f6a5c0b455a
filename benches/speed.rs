//! Native speed figures (JSON lines): `cargo bench --bench speed` (also run by `npm run bench`).
//! `--quick` shortens every measurement; `--cpu` times on-CPU time instead of wall time; `--filter NAME` runs matching workloads only;
//! `--no-memo` turns off the per-pattern memo of the Gibbs conditionals.

use rbm_core::bench;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let quick = args.iter().any(|a| a == "--quick");
    let filter = args
        .iter()
        .position(|a| a == "--filter")
        .and_then(|i| args.get(i + 1))
        .cloned();
    // `--no-memo`: compute every conditional directly (the same bits; shows what the per-pattern
    // memo of the Gibbs conditionals saves).
    if args.iter().any(|a| a == "--no-memo") {
        rbm_core::engine::cpu::patterns::memo::set_enabled(false);
    }
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
    for name in bench::workloads(quick).into_iter().filter(|n| want(n)) {
        match bench::run(&name, &now, secs) {
            Ok((x, unit)) => {
                println!("{{\"target\":\"native\",\"bench\":\"{name}\",\"value\":{x:.3},\"unit\":\"{unit}\"}}")
            }
            Err(e) => println!("{{\"target\":\"native\",\"bench\":\"{name}\",\"error\":\"{e}\"}}"),
        }
    }
}
