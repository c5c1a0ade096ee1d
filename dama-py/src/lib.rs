//! The Python module `dama._dama`: dama's rules, PDN, perft and engine for Python.
//!
//! Every rule comes from `dama-rules` and every search from `dama-search`; this crate only
//! converts values and errors. The Python package `dama` (python/dama) re-exports it; the
//! documentation Python users read is in the docstrings below and the `.pyi` stubs.

use pyo3::prelude::*;

mod board;
mod engine;
mod errors;
mod pdn;
mod planes;

use dama_rules::Variant;

/// Reads a variant name (`"italian"`, `"spanish"`, …, or a `dama.Variant`).
pub(crate) fn variant_of(name: &str) -> PyResult<Variant> {
    name.parse::<Variant>()
        .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))
}

/// An int argument `name` in `lo..=hi`: a `ValueError` naming it, its value and the range
/// otherwise (also for an int too large for any range, which PyO3 would make an
/// `OverflowError`); a value that is not an int stays PyO3's `TypeError`.
pub(crate) fn int_arg<T: TryFrom<i128>>(
    value: &Bound<'_, PyAny>,
    name: &str,
    lo: i128,
    hi: i128,
) -> PyResult<T> {
    let bad = || {
        let shown = value
            .repr()
            .map(|r| r.to_string())
            .unwrap_or_else(|_| "?".into());
        let shown = if shown.len() > 40 {
            format!("{}... ({} digits)", &shown[..20], shown.len())
        } else {
            shown
        };
        pyo3::exceptions::PyValueError::new_err(format!(
            "{name}={shown} is out of range: expected {lo}..={hi}"
        ))
    };
    let n = match value.extract::<i128>() {
        Ok(n) => n,
        Err(e) if e.is_instance_of::<pyo3::exceptions::PyOverflowError>(value.py()) => {
            return Err(bad())
        }
        Err(e) => return Err(e),
    };
    if !(lo..=hi).contains(&n) {
        return Err(bad());
    }
    T::try_from(n).map_err(|_| bad())
}

/// The Python module.
#[pymodule]
fn _dama(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let names: Vec<&str> = Variant::ALL.iter().map(|v| v.name()).collect();
    m.add("VARIANT_NAMES", names)?;
    let levels: Vec<&str> = dama_search::Level::ALL.iter().map(|l| l.name()).collect();
    m.add("LEVEL_NAMES", levels)?;
    m.add("MOVE_INDEX_SIZE", planes::MOVE_INDEX_SIZE)?;
    m.add("PLANES", planes::PLANES)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    errors::register(m)?;
    board::register(m)?;
    engine::register(m)?;
    pdn::register(m)?;
    Ok(())
}
