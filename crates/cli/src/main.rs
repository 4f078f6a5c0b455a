//! The `rbm` command line; the commands live in `rbm_playground::cli`.

fn main() -> std::process::ExitCode {
    rbm_playground::cli::main()
}
