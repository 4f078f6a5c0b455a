//! Integration tests of `rbm explore` (the claims explorer, issue 29): the cell at the preset's
//! own settings is `rbm reproduce`'s study, bit for bit; a grid split by `--cells` and merged by
//! `rbm summarize` is the whole run; bad grids are refused naming their flag.
#![cfg(not(target_arch = "wasm32"))]

use serde_json::Value;
use std::path::PathBuf;
use std::process::{Command, Output};

fn rbm(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rbm"))
        .args(args)
        .output()
        .expect("the rbm binary runs")
}

/// Runs `rbm` expecting success; returns stdout's text.
fn stdout(args: &[&str]) -> String {
    let out = rbm(args);
    assert!(
        out.status.success(),
        "rbm {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn parse(text: &str) -> Vec<Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect()
}

/// A file in the temporary directory, removed when dropped.
struct Temp(PathBuf);

impl Temp {
    fn new(name: &str, contents: &str) -> Temp {
        let p =
            std::env::temp_dir().join(format!("rbm-explore-test-{}-{name}", std::process::id()));
        std::fs::write(&p, contents).unwrap();
        Temp(p)
    }
    fn path(&self) -> &str {
        self.0.to_str().unwrap()
    }
}

impl Drop for Temp {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Removes the timing fields (at any depth), the only ones allowed to differ between runs.
fn without_timing(mut v: Vec<Value>) -> Vec<Value> {
    fn strip(x: &mut Value) {
        match x {
            Value::Object(o) => {
                o.retain(|k, _| !k.ends_with("seconds") && k != "threads");
                o.values_mut().for_each(strip);
            }
            Value::Array(a) => a.iter_mut().for_each(strip),
            _ => {}
        }
    }
    v.iter_mut().for_each(strip);
    v
}

/// The study both commands run: S-DCP's Bars & Stripes preset, shortened.
const SHORT: &[&str] = &["--iters", "400", "--every", "100", "--seed", "7"];

/// The cells at the preset's own settings (its rates 0.3 and 0.5; k = 12 and σ = 0.01 given
/// explicitly, as the preset's values) print `rbm reproduce`'s summaries — final median and
/// every quantile, initial and best median, 90% times — and its verdicts with their numbers,
/// bit for bit; a cell at another σ starts elsewhere.
#[test]
fn the_cell_at_the_presets_settings_is_reproduces_study() {
    let repro = parse(&stdout(
        &[&["reproduce", "sdcp-bas3", "--runs", "3"], SHORT].concat(),
    ));
    let explore = parse(&stdout(
        &[
            &[
                "explore",
                "sdcp-bas3",
                "--trials-per-cell",
                "3",
                "--lrs",
                "0.1,0.3,0.5",
                "--init-sigmas",
                "0.01,0.1",
                "--ks",
                "12",
                "--threads",
                "1",
            ],
            SHORT,
        ]
        .concat(),
    ));
    assert_eq!(explore[0]["command"], "explore");
    assert_eq!(explore[0]["cells"], 6);
    let claims: Vec<&Value> = explore.iter().filter(|v| v["type"] == "claim").collect();
    assert_eq!(claims.len(), 6 * 3, "every claim in every cell");
    let own: Vec<u64> = claims
        .iter()
        .filter(|c| c["preset_point"] == true)
        .map(|c| c["cell"].as_u64().unwrap())
        .collect();
    // Cells: lr 0.1 (0, 1), 0.3 (2: σ 0.01, 3: σ 0.1), 0.5 (4, 5).
    assert_eq!(own, [2, 2, 2, 4, 4, 4]);
    for (cell, lr) in [(2u64, 0.3), (4, 0.5)] {
        let summaries: Vec<&Value> = repro
            .iter()
            .filter(|v| v["type"] == "summary" && v["lr"] == lr)
            .collect();
        assert_eq!(summaries.len(), 5);
        for s in summaries {
            let lane = explore
                .iter()
                .find(|v| v["type"] == "lane" && v["cell"] == cell && v["label"] == s["label"])
                .unwrap_or_else(|| panic!("cell {cell} has lane {}", s["label"]));
            let (s, lane) = (
                without_timing(vec![s.clone()]).remove(0),
                without_timing(vec![lane.clone()]).remove(0),
            );
            for (key, want) in s.as_object().unwrap() {
                if key != "type" {
                    assert_eq!(&lane[key], want, "cell {cell}, {}, {key}", s["label"]);
                }
            }
        }
        let verdicts: Vec<&Value> = repro
            .iter()
            .filter(|v| v["type"] == "claim" && v["lr"] == lr)
            .collect();
        assert!(!verdicts.is_empty());
        for v in verdicts {
            let c = claims
                .iter()
                .find(|c| c["cell"] == cell && c["claim"] == v["claim"])
                .unwrap();
            for key in ["holds", "detail", "trials", "status"] {
                assert_eq!(c[key], v[key], "cell {cell}: {} ({key})", v["claim"]);
            }
            assert!(c["quantity"].is_string(), "{c}");
            // The margin's sign is the verdict.
            if let Some(m) = c["margin"].as_f64() {
                assert_eq!(m > 0.0, v["holds"] == true, "{c}");
            }
        }
    }
    let initial = |cell: u64| {
        explore
            .iter()
            .find(|v| v["type"] == "lane" && v["cell"] == cell)
            .unwrap()["initial_median"]
            .as_f64()
            .unwrap()
    };
    assert_ne!(initial(2), initial(3), "σ = 0.1 starts from another model");
    assert_eq!(
        initial(0),
        initial(2),
        "every rate starts from the same model"
    );
}

const GRID: &[&str] = &[
    "explore",
    "sdcp-shifting-bar",
    "--lrs",
    "0.3,0.5",
    "--init-sigmas",
    "0.001,0.01",
    "--ds",
    "3,6",
    "--trials-per-cell",
    "2",
    "--iters",
    "200",
    "--every",
    "100",
    "--seed",
    "3",
];

/// A grid split by `--cells` (parts in any order, one cell given twice) and merged by
/// `rbm summarize` prints the whole run's lines, timing aside; a gap, a part cut short or a
/// part of another grid is refused.
#[test]
fn a_split_grid_merges_to_the_whole_run() {
    let whole = stdout(GRID);
    let lines = parse(&whole);
    assert_eq!(lines[0]["cells"], 8);
    assert_eq!(lines.last().unwrap()["type"], "done");
    let part = |name: &str, cells: &str| {
        Temp::new(
            name,
            &stdout(&[GRID, &["--cells", cells, "--threads", "1"]].concat()),
        )
    };
    let a = part("a.jsonl", "5..7");
    let b = part("b.jsonl", "0..=4");
    let c = part("c.jsonl", "3");
    let merged = parse(&stdout(&["summarize", a.path(), c.path(), b.path()]));
    assert_eq!(without_timing(merged), without_timing(lines.clone()));
    let bits: Vec<&Value> = lines.iter().filter(|v| v["type"] == "claim").collect();
    assert_eq!(bits.len(), 8 * 6);

    let fails = |args: &[&str]| {
        let out = rbm(args);
        assert!(!out.status.success(), "rbm {args:?} should fail");
        String::from_utf8(out.stderr).unwrap()
    };
    let err = fails(&["summarize", a.path(), c.path()]);
    assert!(err.contains("cell 4 is missing"), "{err}");
    let text = std::fs::read_to_string(a.path()).unwrap();
    let cut: Vec<&str> = text.lines().collect();
    let cut = Temp::new("cut.jsonl", &cut[..cut.len() - 3].join("\n"));
    let err = fails(&["summarize", cut.path()]);
    assert!(
        err.contains("cell 7") && err.contains("did not finish"),
        "{err}"
    );
    let mut reseeded = GRID.to_vec();
    *reseeded.last_mut().unwrap() = "4";
    let other = Temp::new(
        "other.jsonl",
        &stdout(&[&reseeded[..], &["--cells", "4"]].concat()),
    );
    let err = fails(&["summarize", a.path(), other.path()]);
    assert!(err.contains("different grids"), "{err}");
    let per_trial = Temp::new(
        "pt.jsonl",
        &stdout(&[
            "reproduce",
            "sdcp-bas3",
            "--iters",
            "100",
            "--runs",
            "1",
            "--per-trial",
            "--seed",
            "1",
        ]),
    );
    let err = fails(&["summarize", a.path(), per_trial.path()]);
    assert!(err.contains("not the output of `rbm explore`"), "{err}");
}

/// Bad grids — an empty list, NaN, negative, zero, fractional counts, a range past the grid —
/// are refused with one error line naming the flag, before anything runs.
#[test]
fn bad_grids_are_refused_naming_the_flag() {
    let cases: &[(&[&str], &str)] = &[
        (&["--lrs", ""], "--lrs"),
        (&["--lrs", "0.1,NaN"], "--lrs"),
        (&["--lrs", "-0.1"], "--lrs"),
        (&["--lrs", "0.1,x"], "--lrs"),
        (&["--init-sigmas", "0"], "--init-sigmas"),
        (&["--init-sigmas", "inf"], "--init-sigmas"),
        (&["--ks", "1.5"], "--ks"),
        (&["--ds", "-3"], "--ds"),
        (&["--kprimes", ","], "--kprimes"),
        (&["--chains", "NaN"], "--chains"),
        (&["--batches", "0"], "--batches"),
        (&["--batches", "100"], "--batches"),
        (&["--trials-per-cell", "0"], "--trials-per-cell"),
        (&["--cells", "2..9"], "--cells"),
    ];
    for (flags, flag) in cases {
        let args = [
            &["explore", "sdcp-bas3", "--iters", "10", "--seed", "1"],
            *flags,
        ]
        .concat();
        let out = rbm(&args);
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(!out.status.success(), "rbm {args:?} should fail");
        assert_eq!(err.lines().count(), 1, "rbm {args:?}: {err}");
        assert!(err.starts_with("error: "), "rbm {args:?}: {err}");
        assert!(err.contains(flag), "rbm {args:?} names {flag}: {err}");
        assert!(
            out.stdout.is_empty(),
            "rbm {args:?} printed before refusing"
        );
    }
}

/// docs/explorer.md's recipe: GNU parallel runs one job per cell range, `rbm summarize`
/// merges them into what one `rbm explore` prints. Skipped with a message when `parallel` is
/// absent (the merge itself is tested by a_split_grid_merges_to_the_whole_run).
#[test]
fn a_grid_run_with_gnu_parallel_summarizes_to_the_whole_run() {
    let has_parallel = Command::new("parallel")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_parallel {
        eprintln!("SKIPPED: GNU parallel is not installed (apt-get install parallel)");
        return;
    }
    let dir = std::env::temp_dir().join(format!("rbm-explore-parallel-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bin = env!("CARGO_BIN_EXE_rbm");
    let script = format!(
        "parallel --will-cite -j 2 '{bin} explore {grid} --threads 1 --cells {{}} > {dir}/cells-{{}}.jsonl' ::: 0..2 3..6 7 && {bin} summarize {dir}/cells-*.jsonl",
        grid = GRID[1..].join(" "),
        dir = dir.display()
    );
    let out = Command::new("sh").arg("-c").arg(&script).output().unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let merged = parse(&String::from_utf8(out.stdout).unwrap());
    assert_eq!(without_timing(merged), without_timing(parse(&stdout(GRID))));
}

/// `rbm explore --device gpu` trains each cell's lanes as one GPU job (stderr says so once):
/// every cell and claim comes out, the header names the GPU, the job's own numbers differ from
/// the CPU's, and a GPU part does not merge with a CPU part.
#[test]
fn a_grid_on_the_gpu_trains_each_cell_as_one_job() {
    let out = rbm(&[GRID, &["--device", "gpu", "--threads", "2"]].concat());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert_eq!(
        err.matches("train together as one GPU job").count(),
        1,
        "{err}"
    );
    let gpu = parse(&String::from_utf8(out.stdout).unwrap());
    assert!(gpu[0]["device"].as_str().unwrap().starts_with("gpu: "));
    let cpu = parse(&stdout(GRID));
    let kinds = |v: &[Value]| v.iter().map(|l| l["type"].clone()).collect::<Vec<_>>();
    assert_eq!(kinds(&gpu), kinds(&cpu), "the same lines, cell by cell");
    let finals = |v: &[Value]| {
        v.iter()
            .filter(|l| l["type"] == "lane")
            .map(|l| l["final"]["median"].as_f64().unwrap())
            .collect::<Vec<_>>()
    };
    assert_ne!(finals(&gpu), finals(&cpu), "the GPU's own draws");
    let a = Temp::new(
        "gpu-part.jsonl",
        &stdout(&[GRID, &["--device", "gpu", "--cells", "0..3"]].concat()),
    );
    let b = Temp::new(
        "cpu-part.jsonl",
        &stdout(&[GRID, &["--cells", "4..7"]].concat()),
    );
    let merged = rbm(&["summarize", a.path(), b.path()]);
    assert!(!merged.status.success());
    let err = String::from_utf8_lossy(&merged.stderr);
    assert!(
        err.contains("different grids") && err.contains("device"),
        "{err}"
    );
}
