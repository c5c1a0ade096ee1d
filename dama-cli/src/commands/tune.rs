//! `dama tune gen`, `label`, `fit` and `train`: the evaluation's training pipeline (see
//! `dama_lab::tune` and docs/tuning.md). Results go to stdout, progress to stderr.

use std::io::{BufWriter, Write};
use std::path::Path;
use std::time::Instant;

use dama_lab::train::{self, FloatNet, TrainConfig, Trainer};
use dama_lab::tune::{self, FitConfig, GenConfig, LabelConfig};
use dama_rules::Variant;
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
            egtb,
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
                endgames: match egtb {
                    Some(dir) => dama_search::Endgames::from_dir(&dir, false),
                    None => dama_search::Endgames::memory_only(),
                },
            };
            gen(&config, &out)
        }
        TuneAction::Label {
            samples,
            nodes,
            threads,
            egtb,
            out,
        } => {
            let config = LabelConfig {
                nodes,
                threads: threads.unwrap_or_else(processors).max(1),
                knobs: Knobs::default(),
                endgames: match egtb {
                    Some(dir) => dama_search::Endgames::from_dir(&dir, false),
                    None => dama_search::Endgames::memory_only(),
                },
            };
            label(&samples, &config, &out)
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
        TuneAction::Train {
            samples,
            epochs,
            batch,
            rate,
            lambda,
            holdout,
            threads,
            seed,
            checkpoint,
            from,
            egtb,
            out,
        } => {
            let config = TrainConfig {
                epochs,
                batch: batch.max(1),
                rate: rate as f32,
                lambda: lambda as f32,
                holdout,
                threads: threads.unwrap_or_else(processors).max(1),
                seed,
            };
            train(
                &samples,
                &config,
                checkpoint.as_deref(),
                from.as_deref(),
                egtb.as_deref(),
                &out,
            )
        }
    }
}

/// The games of sample files of one variant.
fn read_all(samples: &[std::path::PathBuf]) -> Result<(Variant, Vec<tune::SampleGame>), CliError> {
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
    Ok((variant.map_or(Variant::Italian, |(v, _)| v), games))
}

fn train(
    samples: &[std::path::PathBuf],
    config: &TrainConfig,
    checkpoint: Option<&Path>,
    from: Option<&Path>,
    egtb: Option<&Path>,
    out: &Path,
) -> Result<Status, CliError> {
    let start = Instant::now();
    let (variant, mut games) = read_all(samples)?;
    if let Some(dir) = egtb {
        let tables = dama_search::Endgames::from_dir(dir, false);
        if tables.file_pieces(variant) == 0 {
            return Err(CliError::Usage(format!(
                "--egtb {}: no {} endgame tables there: expected the directory `dama egtb \
                 build` wrote",
                dir.display(),
                variant.name()
            )));
        }
        let changed = tune::label_from_tables(&mut games, variant, &tables);
        eprintln!(
            "{changed} labels changed by the tables of up to {} pieces",
            tables.file_pieces(variant)
        );
    }
    let initial = match from {
        Some(path) => {
            let bytes = std::fs::read(path)
                .map_err(|e| CliError::Usage(format!("cannot read {}: {e}", path.display())))?;
            let net = dama_search::nnue::Network::from_bytes(&bytes)
                .map_err(|e| CliError::Usage(format!("--from {}: {e}", path.display())))?;
            if net.variant != variant {
                return Err(CliError::Usage(format!(
                    "--from {}: a net for {}, the samples are of {}: expected a net of the \
                     samples' variant",
                    path.display(),
                    net.variant.name(),
                    variant.name()
                )));
            }
            Some(FloatNet::from_network(&net))
        }
        None => None,
    };
    let mut trainer = Trainer::new(&games, config);
    drop(games);
    let [n, held] = trainer.positions();
    if n == 0 {
        return Err(CliError::Usage(
            "no positions with scores: expected sample files of version 3 or 4 (dama tune gen)"
                .into(),
        ));
    }
    eprintln!(
        "{n} training positions, {held} held out, K {:.1}, read in {:.1} s",
        trainer.k,
        start.elapsed().as_secs_f64()
    );
    let (net, state) = match checkpoint.filter(|p| p.exists()) {
        Some(path) => {
            let bytes = std::fs::read(path)
                .map_err(|e| CliError::Usage(format!("cannot read {}: {e}", path.display())))?;
            let (net, st) = train::read_checkpoint(&bytes)
                .map_err(|e| CliError::Usage(format!("{}: {e}", path.display())))?;
            eprintln!("resuming {} after epoch {}", path.display(), st.epoch);
            (net, Some(st))
        }
        None => (initial.unwrap_or_else(|| FloatNet::new(config.seed)), None),
    };
    let before = trainer.held_out_loss(&net);
    eprintln!("held-out loss {before:.6} before");
    let failed = std::sync::Mutex::new(None);
    let progress = |(report, net, st): &(train::EpochReport, &FloatNet, &train::TrainState)| {
        eprintln!(
            "epoch {}: training loss {:.6} held-out {:.6}, {:.0} s",
            report.epoch,
            report.train,
            report.held_out,
            start.elapsed().as_secs_f64()
        );
        if let Some(path) = checkpoint {
            let tmp = path.with_extension("tmp");
            let r = std::fs::write(&tmp, train::checkpoint_bytes(net, st))
                .and_then(|()| std::fs::rename(&tmp, path));
            if let Err(e) = r {
                *failed.lock().unwrap_or_else(|e| e.into_inner()) =
                    Some(format!("cannot write {}: {e}", path.display()));
            }
        }
    };
    let (net, state) = trainer.run(net, state, &progress);
    if let Some(e) = failed.into_inner().unwrap_or_else(|e| e.into_inner()) {
        return Err(CliError::Usage(e));
    }
    let after = trainer.held_out_loss(&net);
    std::fs::write(out, net.quantize(variant).to_bytes())
        .map_err(|e| CliError::Usage(format!("cannot write {}: {e}", out.display())))?;
    crate::output::line(format_args!(
        "positions {n} held-out {held} K {:.1} epochs {} held-out loss before {before:.6} \
         after {after:.6} time {:.1} s",
        trainer.k,
        state.epoch,
        start.elapsed().as_secs_f64()
    ))?;
    Ok(Status::Ok)
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

fn label(
    samples: &[std::path::PathBuf],
    config: &LabelConfig,
    out: &Path,
) -> Result<Status, CliError> {
    let start = Instant::now();
    let (variant, mut games) = read_all(samples)?;
    let file = std::fs::File::create(out)
        .map_err(|e| CliError::Usage(format!("cannot create {}: {e}", out.display())))?;
    let total = games.len();
    let positions: usize = games.iter().map(|g| g.positions.len()).sum();
    let progress = |done: usize| {
        if done.is_multiple_of(100) || done == total {
            eprintln!(
                "{done}/{total} games, {:.0} s",
                start.elapsed().as_secs_f64()
            );
        }
    };
    let searched = tune::label_by_search(&mut games, variant, config, &progress);
    let mut writer = BufWriter::new(file);
    tune::write_samples(&mut writer, variant, &games).map_err(CliError::Output)?;
    writer.flush().map_err(CliError::Output)?;
    crate::output::line(format_args!(
        "games {total} positions {positions} searched {searched} nodes {} time {:.1} s",
        config.nodes,
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
    let (variant, games) = read_all(samples)?;
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
