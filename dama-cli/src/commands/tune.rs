//! `dama tune gen` and `dama tune fit`: the evaluation's training pipeline (see
//! `dama_search::tune` and docs/tuning.md). Results go to stdout, progress to stderr.

use std::io::{BufWriter, Write};
use std::path::Path;
use std::time::Instant;

use dama_rules::Variant;
use dama_search::tune::{self, FitConfig, GenConfig};
use dama_search::weights::{self, Weights};
use dama_search::Knobs;

use crate::cli::TuneAction;
use crate::error::CliError;
use crate::exit::Status;

/// Runs a `dama tune` action.
pub fn run(action: TuneAction) -> Result<Status, CliError> {
    match action {
        TuneAction::Gen {
            variant,
            games,
            nodes,
            random_plies,
            shard,
            threads,
            seed,
            classic,
            patterns,
            out,
        } => {
            let config = GenConfig {
                variant,
                games,
                nodes,
                random_plies,
                shard: shard.unwrap_or((1, 1)),
                threads: threads.unwrap_or_else(processors).max(1),
                seed,
                knobs: Knobs {
                    classic_eval: classic,
                    pattern_eval: patterns,
                    ..Knobs::default()
                },
            };
            gen(&config, &out)
        }
        TuneAction::Fit {
            samples,
            epochs,
            rate,
            l2,
            holdout,
            no_patterns,
            from,
            threads,
            out,
        } => {
            let config = FitConfig {
                epochs,
                rate,
                l2,
                holdout,
                threads: threads.unwrap_or_else(processors).max(1),
                patterns: !no_patterns,
            };
            fit(&samples, from.as_deref(), &config, &out)
        }
    }
}

fn processors() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

fn gen(config: &GenConfig, out: &Path) -> Result<Status, CliError> {
    let file = std::fs::File::create(out)
        .map_err(|e| CliError::Usage(format!("cannot create {}: {e}", out.display())))?;
    let mut writer = BufWriter::new(file);
    let start = Instant::now();
    let total = (0..config.games)
        .filter(|i| i % config.shard.1 == config.shard.0 - 1)
        .count();
    let progress = |done: usize| {
        if done.is_multiple_of(100) || done == total {
            eprintln!(
                "{done}/{total} games, {:.0} s",
                start.elapsed().as_secs_f64()
            );
        }
    };
    let stats = tune::generate(config, &mut writer, &progress).map_err(CliError::Output)?;
    writer.flush().map_err(CliError::Output)?;
    let [w, d, b] = stats.results;
    crate::output::line(format_args!(
        "games {} positions {} white {w} draws {d} black {b} time {:.1} s",
        stats.games,
        stats.positions,
        start.elapsed().as_secs_f64()
    ))?;
    Ok(Status::Ok)
}

fn fit(
    samples: &[std::path::PathBuf],
    from: Option<&Path>,
    config: &FitConfig,
    out: &Path,
) -> Result<Status, CliError> {
    let start = Instant::now();
    let mut games = Vec::new();
    let mut variant: Option<(Variant, &Path)> = None;
    for path in samples {
        let bytes = std::fs::read(path)
            .map_err(|e| CliError::Usage(format!("cannot read {}: {e}", path.display())))?;
        let mut read = tune::read_samples(&bytes)
            .map_err(|e| CliError::Usage(format!("{}: {e}", path.display())))?;
        match variant {
            Some((v, first)) if v != read.variant => {
                return Err(CliError::Usage(format!(
                    "{} holds {} games, {} holds {} games: expected sample files of one variant",
                    path.display(),
                    read.variant.name(),
                    first.display(),
                    v.name()
                )))
            }
            Some(_) => {}
            None => variant = Some((read.variant, path.as_path())),
        }
        games.append(&mut read.games);
    }
    let variant = variant.map_or(Variant::Italian, |(v, _)| v);
    let from_weights;
    let initial: &Weights = match from {
        Some(path) => {
            let bytes = std::fs::read(path)
                .map_err(|e| CliError::Usage(format!("cannot read {}: {e}", path.display())))?;
            from_weights = Weights::from_bytes(&bytes)
                .map_err(|e| CliError::Usage(format!("{}: {e}", path.display())))?;
            &from_weights
        }
        None => weights::classic(variant),
    };
    eprintln!(
        "{} {} games read in {:.1} s",
        games.len(),
        variant.name(),
        start.elapsed().as_secs_f64()
    );
    let progress = |epoch: usize, loss: f64| eprintln!("epoch {epoch}: training loss {loss:.5}");
    let report = tune::fit(&games, initial, config, &progress);
    std::fs::write(out, report.weights.to_bytes())
        .map_err(|e| CliError::Usage(format!("cannot write {}: {e}", out.display())))?;
    crate::output::line(format_args!(
        "positions {} held-out {} K {:.1} loss before {:.5} held-out {:.5} after {:.5} \
         held-out {:.5} time {:.1} s",
        report.positions[0],
        report.positions[1],
        report.k,
        report.before[0],
        report.before[1],
        report.after[0],
        report.after[1],
        start.elapsed().as_secs_f64()
    ))?;
    Ok(Status::Ok)
}
