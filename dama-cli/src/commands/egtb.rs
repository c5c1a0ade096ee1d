//! `dama egtb`: build, probe, list and verify the endgame tables.

use std::collections::HashMap;
use std::io::{self, BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use dama_egtb::{solve::build_order, variant_dir, BuildEvent, Material, Tables};
use dama_protocol::client::ClientConfig;
use dama_rules::notation::fen;
use dama_rules::Variant;

use crate::cli::{EgtbAction, EgtbArgs};
use crate::error::CliError;
use crate::exit::Status;

fn dir_of(args: &EgtbArgs) -> PathBuf {
    args.dir.clone().unwrap_or_else(dama_egtb::default_dir)
}

/// The directory to read tables from: one named by `--dir` or `$DAMA_EGTB` must exist (a
/// mistyped path would else read as "no tables", every probe `unknown`); the default one
/// may be missing (nothing built yet).
fn existing_dir(args: &EgtbArgs) -> Result<PathBuf, CliError> {
    let named = match &args.dir {
        Some(dir) => Some(("--dir", dir.clone())),
        None => std::env::var_os("DAMA_EGTB")
            .filter(|d| !d.is_empty())
            .map(|d| ("$DAMA_EGTB", PathBuf::from(d))),
    };
    match named {
        Some((what, dir)) if !dir.is_dir() => Err(no_such_dir(what, &dir)),
        _ => Ok(dir_of(args)),
    }
}

/// A tables' directory named by `what` (an option, `$DAMA_EGTB`) that is not there.
pub(crate) fn no_such_dir(what: &str, dir: &std::path::Path) -> CliError {
    CliError::Usage(format!(
        "{what} {}: no such directory: expected the directory of the tables (`dama egtb build \
         --dir DIR` makes one)",
        dir.display()
    ))
}

fn egtb_error(e: dama_egtb::Error) -> CliError {
    CliError::Usage(egtb_message(&e))
}

/// A tables error as one message. A damaged file's error, kept by `dama_egtb::Tables` for its
/// next use, comes back wrapped in another naming the same file: its path and "not a valid
/// table file" are said once here.
fn egtb_message(e: &dama_egtb::Error) -> String {
    match e {
        dama_egtb::Error::Corrupt { path, why } => {
            let path = path.display();
            let why = why
                .strip_prefix(&format!("{path}: not a valid table file: "))
                .or_else(|| why.strip_prefix(&format!("{path}: ")))
                .unwrap_or(why);
            format!("{path}: not a valid table file: {why}")
        }
        other => other.to_string(),
    }
}

pub fn run(action: EgtbAction) -> Result<Status, CliError> {
    match action {
        EgtbAction::Build {
            args,
            pieces,
            threads,
            allow_huge,
        } => {
            if pieces >= 7 && !allow_huge {
                return Err(too_huge(pieces));
            }
            build(args.variant, &dir_of(&args), pieces, threads)
        }
        EgtbAction::Probe { args, fen, stdin } => {
            probe(args.variant, &existing_dir(&args)?, fen, stdin)
        }
        EgtbAction::Info { args } => info(args.variant, &existing_dir(&args)?),
        EgtbAction::Verify {
            args,
            pieces,
            class,
            threads,
        } => verify(args.variant, &existing_dir(&args)?, pieces, &class, threads),
        EgtbAction::Convert {
            args,
            positions,
            pieces,
            nodes,
            min_distance,
            no_tables,
            classes,
            start,
            seed,
            threads,
            engine,
            engine_param,
            movetime,
        } => super::convert::run(
            &existing_dir(&args)?,
            &super::convert::Options {
                variant: args.variant,
                positions,
                pieces,
                nodes,
                min_distance,
                no_tables,
                classes: match classes.as_str() {
                    "kings" => super::convert::Classes::KingsOnly,
                    "all" => super::convert::Classes::All,
                    _ => super::convert::Classes::WithMen,
                },
                start: match start.as_str() {
                    "drawn" => dama_egtb::Wdl::Draw,
                    "lost" => dama_egtb::Wdl::Loss,
                    _ => dama_egtb::Wdl::Win,
                },
                seed,
                threads,
                engine: engine
                    .map(|command| engine_config(&command, args.variant, &engine_param))
                    .transpose()?,
                move_time: movetime,
            },
        ),
    }
}

/// The Hub engine of `dama egtb convert --engine`: `command` split at spaces, the variant
/// and then each `NAME=VALUE` of `params` set before `init`.
fn engine_config(
    command: &str,
    variant: Variant,
    params: &[String],
) -> Result<ClientConfig, CliError> {
    let mut words = command.split_whitespace().map(String::from);
    let program = words
        .next()
        .ok_or_else(|| CliError::Usage("--engine: expected a command, not nothing".into()))?;
    let mut config = ClientConfig::new(program).param("variant", variant.name());
    config.args = words.collect();
    for p in params {
        let (name, value) = p.split_once('=').ok_or_else(|| {
            CliError::Usage(format!(
                "--engine-param \"{p}\": expected NAME=VALUE, like egtb-init=false"
            ))
        })?;
        config = config.param(name.trim(), value.trim());
    }
    Ok(config)
}

fn build(variant: Variant, dir: &Path, pieces: u32, threads: usize) -> Result<Status, CliError> {
    let terminal = io::stderr().is_terminal();
    let start = Instant::now();
    let mut solved = 0u64;
    let mut finished = 0u64;
    let all: u64 = all_classes(pieces.min(7))
        .iter()
        .map(|m| m.len() as u64)
        .sum();
    let mut report = |e: &BuildEvent| {
        let mut err = io::stderr().lock();
        match *e {
            BuildEvent::Start {
                material,
                done,
                total,
                positions,
            } if terminal => {
                let elapsed = start.elapsed().as_secs_f64();
                let rate = solved as f64 / elapsed.max(1e-3);
                let width = 30;
                let filled = width * done / total.max(1);
                let eta = if rate > 0.0 {
                    format!("{:.0}s", all.saturating_sub(finished) as f64 / rate)
                } else {
                    "?".to_string()
                };
                let _ = write!(
                    err,
                    "\r\x1b[K[{}{}] {done}/{total} {material} ({positions} positions) {:.1} M/s, {elapsed:.0}s, ETA {eta}",
                    "#".repeat(filled),
                    "-".repeat(width - filled),
                    rate / 1e6,
                );
                let _ = err.flush();
            }
            BuildEvent::Start { .. } => {}
            BuildEvent::Finished {
                material,
                done,
                total,
                positions,
                bytes,
                seconds,
                resumed,
            } => {
                if !resumed {
                    solved += positions;
                }
                finished += positions;
                if !terminal {
                    let how = if resumed {
                        "already built".to_string()
                    } else {
                        format!("{seconds:.2} s")
                    };
                    let _ = writeln!(
                        err,
                        "egtb {variant} {done}/{total} {material}: {positions} positions, {bytes} bytes, {how}"
                    );
                }
            }
        }
    };
    dama_egtb::build(variant, pieces, dir, threads, &mut report).map_err(egtb_error)?;
    if terminal {
        eprintln!();
    }
    eprintln!(
        "egtb {variant} up to {pieces} pieces in {}: {:.1} s",
        variant_dir(dir, variant).display(),
        start.elapsed().as_secs_f64()
    );
    Ok(Status::Ok)
}

fn probe_line(tables: &Tables, variant: Variant, text: &str) -> Result<String, String> {
    let pos = fen::parse(text).map_err(|e| e.to_string())?;
    match tables.probe(variant, &pos) {
        Ok(Some(v)) => Ok(v.to_string()),
        Ok(None) => Ok("unknown".to_string()),
        Err(e) => Err(egtb_message(&e)),
    }
}

fn probe(
    variant: Variant,
    dir: &Path,
    fen_text: Option<String>,
    stdin: bool,
) -> Result<Status, CliError> {
    let tables = Tables::open(dir).map_err(egtb_error)?;
    let out = io::stdout();
    let mut out = BufWriter::new(out.lock());
    let mut status = Status::Ok;
    let mut answer = |line: Result<&str, String>| -> Result<(), CliError> {
        match line.and_then(|text| probe_line(&tables, variant, text)) {
            Ok(line) => writeln!(out, "{line}"),
            Err(why) => {
                status = Status::BadInput;
                writeln!(out, "error: {why}")
            }
        }
        .map_err(CliError::Output)
    };
    if stdin {
        super::each_stdin_line(&mut answer)?;
    } else {
        // One position: its error is the command's, on stderr.
        let line = probe_line(&tables, variant, fen_text.as_deref().unwrap_or(""))
            .map_err(CliError::Usage)?;
        writeln!(out, "{line}").map_err(CliError::Output)?;
    }
    out.flush().map_err(CliError::Output)?;
    Ok(status)
}

/// The measured cost of `dama egtb build --pieces 6` (Italian; docs/egtb.md): its peak
/// memory in GB (every solved class is kept at one byte a position) and its CPU seconds.
const SIX_PIECES_COST: (f64, f64) = (2.85, 1038.0);

/// Why `--pieces N` (7) is refused without `--allow-huge`: the 6-piece figures scaled by the
/// positions (memory grows with them; time at least as fast).
fn too_huge(pieces: u32) -> CliError {
    let positions = |n| -> u64 { all_classes(n).iter().map(|m| m.len() as u64).sum() };
    let (six, many) = (positions(6), positions(pieces));
    let ratio = many as f64 / six.max(1) as f64;
    let (gb, cpu) = SIX_PIECES_COST;
    CliError::Usage(format!(
        "--pieces {pieces}: {many} positions, {ratio:.0} times the {six} of 6 pieces, which \
         took {gb} GB of memory and {:.0} CPU-minutes to build: expect about {:.0} GB and {:.0} \
         CPU-hours; add --allow-huge to build them anyway",
        cpu / 60.0,
        gb * ratio,
        cpu * ratio / 3600.0
    ))
}

/// Every class with at most 7 pieces, both colours.
fn all_classes(pieces: u32) -> Vec<Material> {
    let mut out = Vec::new();
    for m in build_order(pieces) {
        out.push(m);
        if m.flip() != m {
            out.push(m.flip());
        }
    }
    out
}

/// Build times from the manifest, by class name.
fn manifest_times(dir: &Path, variant: Variant) -> HashMap<String, String> {
    let text =
        std::fs::read_to_string(variant_dir(dir, variant).join("manifest.txt")).unwrap_or_default();
    let mut times = HashMap::new();
    for line in text.lines() {
        let mut words = line.split_whitespace();
        if let Some(name) = words.next() {
            if let Some(t) = words.find_map(|w| w.strip_prefix("seconds=")) {
                times.insert(name.to_string(), t.to_string());
            }
        }
    }
    times
}

fn info(variant: Variant, dir: &Path) -> Result<Status, CliError> {
    let tables = Tables::open(dir).map_err(egtb_error)?;
    let times = manifest_times(dir, variant);
    let out = io::stdout();
    let mut out = BufWriter::new(out.lock());
    let w = |out: &mut BufWriter<_>, s: &str| writeln!(out, "{s}").map_err(CliError::Output);
    let (mut files, mut positions, mut bytes) = (0u64, 0u64, 0u64);
    let mut lines = Vec::new();
    let mut damaged = Vec::new();
    for m in all_classes(7) {
        match tables.header(variant, m) {
            Ok(None) => {}
            Ok(Some((h, size))) => {
                files += 1;
                positions += h.len;
                bytes += size;
                let time = times.get(&m.to_string()).map_or("?", String::as_str);
                lines.push(format!(
                    "{m} positions={} bytes={size} seconds={time} checksum={:016x}",
                    h.len, h.checksum
                ));
            }
            Err(e) => {
                eprintln!("dama: {}", egtb_message(&e));
                damaged.push(m);
            }
        }
    }
    // A damaged class is not there: the tables are complete below its size only.
    let complete = damaged
        .iter()
        .map(|m| m.pieces() - 1)
        .fold(tables.max_pieces(variant), u32::min);
    let mut head = format!(
        "egtb {variant} in {}: complete up to {complete} pieces",
        variant_dir(dir, variant).display()
    );
    if !damaged.is_empty() {
        let names: Vec<String> = damaged.iter().map(Material::to_string).collect();
        head.push_str(&format!(
            "; {} damaged (on stderr): {}; `dama egtb build` builds them again",
            names.len(),
            names.join(" ")
        ));
    }
    w(&mut out, &head)?;
    for line in &lines {
        w(&mut out, line)?;
    }
    w(
        &mut out,
        &format!("total {files} files, {positions} positions, {bytes} bytes"),
    )?;
    let status = if damaged.is_empty() {
        Status::Ok
    } else {
        Status::Negative
    };
    out.flush().map_err(CliError::Output)?;
    Ok(status)
}

fn verify(
    variant: Variant,
    dir: &Path,
    pieces: Option<u32>,
    only: &[String],
    threads: usize,
) -> Result<Status, CliError> {
    let tables = Tables::open(dir).map_err(egtb_error)?;
    let pieces = pieces.unwrap_or(7).min(7);
    let mut wanted = Vec::new();
    for name in only {
        let m: Material = name.parse().map_err(egtb_error)?;
        if m.pieces() > 7 || !m.is_table() {
            return Err(CliError::Usage(format!(
                "{name:?} is not a table class: expected up to 7 pieces, each side with one"
            )));
        }
        wanted.push(m);
    }
    let classes: Vec<Material> = all_classes(pieces)
        .into_iter()
        .filter(|m| wanted.is_empty() || wanted.contains(m))
        .filter(|&m| matches!(tables.header(variant, m), Ok(Some(_)) | Err(_)))
        .collect();
    if classes.is_empty() {
        return Err(CliError::Usage(format!(
            "no {variant} tables{} in {}: build them with `dama egtb build`",
            if only.is_empty() {
                String::new()
            } else {
                format!(" of {}", only.join(","))
            },
            variant_dir(dir, variant).display()
        )));
    }
    // Workers take the classes in order; the lines come out as classes finish.
    let next = std::sync::atomic::AtomicUsize::new(0);
    let failed = std::sync::atomic::AtomicBool::new(false);
    let out = std::sync::Mutex::new(io::stdout());
    let work = || -> Result<(), CliError> {
        loop {
            let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let Some(&m) = classes.get(i) else {
                return Ok(());
            };
            let t = Instant::now();
            let line = match tables.verify(variant, m) {
                Ok(n) => format!("{m} ok {n} ({:.1} s)", t.elapsed().as_secs_f64()),
                Err(e) => {
                    failed.store(true, std::sync::atomic::Ordering::Relaxed);
                    format!("{m} error: {}", egtb_message(&e))
                }
            };
            let out = out.lock().unwrap_or_else(|e| e.into_inner());
            let mut out = out.lock();
            writeln!(out, "{line}")
                .and_then(|_| out.flush())
                .map_err(CliError::Output)?;
        }
    };
    let results: Vec<Result<(), CliError>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads.clamp(1, 64)).map(|_| s.spawn(work)).collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(CliError::Internal("a verify thread panicked".into())))
            })
            .collect()
    });
    for r in results {
        r?;
    }
    Ok(if failed.into_inner() {
        Status::Negative
    } else {
        Status::Ok
    })
}
