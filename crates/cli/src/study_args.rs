//! The flags `rbm reproduce` and `rbm explore` share: a study's scale, length, measurements,
//! algorithms, seed and threads (one declaration, one meaning in both commands).

use super::common::CliResult;
use clap::Args;
use rbm_core::experiments::trials::StudyRequest;
use rbm_core::experiments::Scale;

/// A study's run flags (flattened into `reproduce` and `explore`).
#[derive(Args, Debug)]
pub struct StudyArgs {
    /// Settings the other flags default to: reduced (the preset's defaults, shortened where
    /// its `scale` says so) or paper (the paper's trials, length and AIS, `paper_scale` in
    /// `rbm presets`; a preset already at its paper's scale is unchanged)
    #[arg(long, default_value = "reduced", value_parser = Scale::NAMES)]
    pub scale: String,
    /// Print the header and the estimated duration (one `estimate` line), and stop before
    /// training
    #[arg(long)]
    pub dry_run: bool,
    /// Epochs per trial (converted to updates with the preset's batch size) [default: the
    /// preset's at --scale]
    #[arg(long, conflicts_with = "iters")]
    pub epochs: Option<u64>,
    /// Updates per trial [default: the preset's at --scale]
    #[arg(long)]
    pub iters: Option<u64>,
    /// Evaluate (the preset's ATLL) every this many updates [default: the preset's at --scale]
    #[arg(long)]
    pub every: Option<u64>,
    /// AIS particles per evaluation (presets measured by AIS) [default: the preset's at --scale]
    #[arg(long)]
    pub particles: Option<usize>,
    /// AIS inverse temperatures per evaluation (presets measured by AIS; the S-DCP paper: 10000)
    /// [default: the preset's at --scale]
    #[arg(long)]
    pub betas: Option<usize>,
    /// Threads [default: available cores]; the output does not depend on it
    #[arg(long)]
    pub threads: Option<usize>,
    /// Seed [default: drawn from the system and printed in the first line]
    #[arg(long)]
    pub seed: Option<u64>,
    /// Run only these of the preset's algorithms (comma-separated names, e.g. cd,pcd)
    #[arg(long, value_delimiter = ',')]
    pub algos: Option<Vec<String>>,
}

impl StudyArgs {
    /// The scale the flags name.
    pub fn scale(&self) -> CliResult<Scale> {
        Ok(Scale::parse(&self.scale)?)
    }

    /// The study these flags ask for, with `runs` trials from `first` and `rates` (None: the
    /// preset's).
    pub fn request(
        &self,
        runs: Option<usize>,
        first: Option<usize>,
        rates: Option<Vec<f64>>,
    ) -> CliResult<StudyRequest> {
        Ok(StudyRequest {
            scale: self.scale()?,
            algos: self.algos.clone(),
            rates,
            runs,
            first,
            epochs: self.epochs,
            iters: self.iters,
            every: self.every,
            particles: self.particles,
            betas: self.betas,
            overrides: Default::default(),
        })
    }
}
