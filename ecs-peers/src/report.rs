//! Output: the Markdown table, JSON, and the SVG chart (drawn with plotters).

use std::fmt::Write as _;
use std::time::Duration;

use plotters::prelude::*;

use crate::workload::Workload;
use crate::{CRATES, Cell};

/// One workload's cells, in [`CRATES`] order.
pub type Row = (Workload, Vec<Option<Cell>>);

/// When and where the run happened, and the crate versions.
pub struct Meta {
    pub date: String,
    pub machine: String,
    pub versions: Vec<(String, String)>,
}

impl Meta {
    pub fn collect() -> Self {
        let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
        let date = civil_date((secs / 86_400) as i64);
        let cpu = std::fs::read_to_string("/proc/cpuinfo")
            .ok()
            .and_then(|s| {
                s.lines()
                    .find(|l| l.starts_with("model name"))
                    .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
            })
            .unwrap_or_else(|| "unknown CPU".into());
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let lock = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../Cargo.lock")).unwrap_or_default();
        let versions = ["ecs-core", "flecs_ecs", "hecs", "bevy_ecs", "legion", "shipyard", "specs"]
            .iter()
            .map(|name| (name.to_string(), lock_version(&lock, name).unwrap_or_else(|| "?".into())))
            .collect();
        Self { date, machine: format!("{cpu}, {cores} threads"), versions }
    }

    pub fn line(&self) -> String {
        let versions: Vec<String> = self.versions.iter().map(|(n, v)| format!("{n} {v}")).collect();
        format!("{} — {} — {}", self.date, self.machine, versions.join(", "))
    }
}

fn lock_version(lock: &str, name: &str) -> Option<String> {
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if line == format!("name = \"{name}\"") {
            return lines.next()?.strip_prefix("version = \"")?.strip_suffix('"').map(str::to_string);
        }
    }
    None
}

/// Days since 1970-01-01 to `YYYY-MM-DD` (Howard Hinnant's algorithm).
fn civil_date(days: i64) -> String {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

fn fmt(d: Duration) -> String {
    let ns = d.as_nanos() as f64;
    if ns >= 1e6 {
        format!("{:.2} ms", ns / 1e6)
    } else if ns >= 1e3 {
        format!("{:.1} µs", ns / 1e3)
    } else {
        format!("{ns:.0} ns")
    }
}

/// The fastest ECS crate of a row (the baseline is not a peer).
fn best_peer(cells: &[Option<Cell>]) -> Option<Duration> {
    cells
        .iter()
        .zip(CRATES.iter())
        .filter(|(_, (name, _))| *name != "baseline")
        .filter_map(|(c, _)| c.as_ref())
        .map(|c| c.median)
        .min()
}

pub fn table(results: &[(Workload, Vec<Option<Cell>>)]) -> String {
    let mut out = String::from("| workload |");
    for (name, _) in CRATES {
        write!(out, " {name} |").unwrap();
    }
    out.push_str("\n|---|");
    for _ in CRATES {
        out.push_str("---|");
    }
    for (workload, cells) in results {
        write!(out, "\n| {} |", workload.name()).unwrap();
        let best = best_peer(cells);
        for (cell, (name, _)) in cells.iter().zip(CRATES.iter()) {
            match (cell, best) {
                (Some(c), Some(b)) => {
                    let ratio = c.median.as_secs_f64() / b.as_secs_f64();
                    let mark = if ratio <= 1.0 && *name != "baseline" { "**" } else { "" };
                    write!(
                        out,
                        " {mark}{} ({ratio:.2}x){mark} <sub>{}–{}</sub> |",
                        fmt(c.median),
                        fmt(c.min),
                        fmt(c.max)
                    )
                    .unwrap();
                }
                _ => out.push_str(" — |"),
            }
        }
    }
    out.push_str("\n\nCells: median per iteration (ratio to the fastest ECS crate in the row; bold = fastest) and the min–max over rounds. — = not run: hecs has no scheduler (its hierarchy rows keep `Parent` and `Children` links by hand); hecs and legion have no sparse storage, and flecs' sparse traits are not exercised here; events, observers and changed run on ecs and bevy_ecs only (plus flecs for observers, the baseline for events).");
    out
}

pub fn json(results: &[(Workload, Vec<Option<Cell>>)], meta: &Meta) -> String {
    let mut out = format!(
        "{{\n  \"date\": \"{}\",\n  \"machine\": \"{}\",\n  \"versions\": {{",
        meta.date,
        meta.machine.replace('"', "'")
    );
    let versions: Vec<String> = meta.versions.iter().map(|(n, v)| format!("\"{n}\": \"{v}\"")).collect();
    out.push_str(&versions.join(", "));
    out.push_str("},\n  \"results\": [\n");
    let mut rows = Vec::new();
    for (workload, cells) in results {
        for (cell, (name, _)) in cells.iter().zip(CRATES.iter()) {
            if let Some(c) = cell {
                rows.push(format!(
                    "    {{\"workload\": \"{}\", \"crate\": \"{name}\", \"median_ns\": {}, \"min_ns\": {}, \"max_ns\": {}}}",
                    workload.name(),
                    c.median.as_nanos(),
                    c.min.as_nanos(),
                    c.max.as_nanos()
                ));
            }
        }
    }
    out.push_str(&rows.join(",\n"));
    out.push_str("\n  ]\n}\n");
    out
}

pub fn chart(
    results: &[(Workload, Vec<Option<Cell>>)],
    meta: &Meta,
    path: &str,
) -> Result<(), Box<dyn std::error::Error>> {
    let root = SVGBackend::new(path, (1200, 620)).into_drawing_area();
    root.fill(&WHITE)?;
    let title = format!("Time relative to the fastest ECS crate (lower is better) — {}", meta.date);
    let n = results.len();
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 20))
        .margin(16)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(0f64..n as f64, (0.2f64..1000.0).log_scale())?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(n * 2 + 1)
        .x_label_formatter(&|x| {
            let i = x.floor() as usize;
            if (x - x.floor() - 0.5).abs() < 0.01 && i < n { results[i].0.name().to_string() } else { String::new() }
        })
        .y_desc("ratio (log scale)")
        .y_label_formatter(&|y| format!("{y}x"))
        .draw()?;
    let colours = [
        RGBColor(214, 39, 40),
        RGBColor(23, 190, 207),
        RGBColor(31, 119, 180),
        RGBColor(148, 103, 189),
        RGBColor(140, 86, 75),
        RGBColor(44, 160, 44),
        RGBColor(255, 127, 14),
        RGBColor(188, 189, 34),
        RGBColor(60, 60, 60),
    ];
    let width = 0.8 / CRATES.len() as f64;
    for (k, (name, _)) in CRATES.iter().enumerate() {
        let colour = colours[k % colours.len()];
        let bars: Vec<_> = results
            .iter()
            .enumerate()
            .filter_map(|(i, (_, cells))| {
                let best = best_peer(cells)?;
                let ratio = cells[k].as_ref()?.median.as_secs_f64() / best.as_secs_f64();
                let x0 = i as f64 + 0.1 + k as f64 * width;
                Some(Rectangle::new([(x0, 0.2), (x0 + width * 0.9, ratio.max(0.21))], colour.filled()))
            })
            .collect();
        chart
            .draw_series(bars)?
            .label(*name)
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 10, y + 5)], colour.filled()));
    }
    chart.draw_series(std::iter::once(PathElement::new(vec![(0.0, 1.0), (n as f64, 1.0)], BLACK.stroke_width(1))))?;
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .position(SeriesLabelPosition::UpperRight)
        .draw()?;
    root.draw(&Text::new(meta.line(), (20, 600), ("sans-serif", 12)))?;
    root.present()?;
    Ok(())
}

/// The README's compact table: for each workload this crate's median, the
/// fastest other ECS crate's, and the ratio between them.
pub fn summary(results: &[(Workload, Vec<Option<Cell>>)], meta: &Meta) -> String {
    let ours = CRATES.iter().position(|(name, _)| *name == "ecs").expect("ecs is a column");
    let mut out = format!(
        "Run of {} on {} (median time per iteration; lower is better).\n\n| workload | ecs | fastest other crate | ecs / other |\n|---|---|---|---|",
        meta.date, meta.machine
    );
    for (workload, cells) in results {
        let Some(mine) = &cells[ours] else { continue };
        let best = cells
            .iter()
            .zip(CRATES.iter())
            .filter(|(_, (name, _))| *name != "baseline" && *name != "ecs")
            .filter_map(|(c, (name, _))| c.as_ref().map(|c| (name, c.median)))
            .min_by_key(|&(_, median)| median);
        match best {
            Some((name, median)) => {
                let ratio = mine.median.as_secs_f64() / median.as_secs_f64();
                write!(out, "\n| {} | {} | {name} {} | {ratio:.2}x |", workload.name(), fmt(mine.median), fmt(median))
                    .unwrap();
            }
            None => write!(out, "\n| {} | {} | — | — |", workload.name(), fmt(mine.median)).unwrap(),
        }
    }
    out
}

/// Replaces what lies between the summary markers of the README at `path`.
pub fn write_summary(path: &str, summary: &str) -> std::io::Result<()> {
    const BEGIN: &str = "<!-- peers-summary:begin -->";
    const END: &str = "<!-- peers-summary:end -->";
    let readme = std::fs::read_to_string(path)?;
    let (Some(begin), Some(end)) = (readme.find(BEGIN), readme.find(END)) else {
        return Err(std::io::Error::other(format!("{path} has no {BEGIN} … {END} markers")));
    };
    let updated = format!("{}{BEGIN}\n{summary}\n{}", &readme[..begin], &readme[end..]);
    std::fs::write(path, updated)
}

/// Reads back the `results` and `Meta` of a `peers.json` this program wrote.
pub fn read_json(text: &str) -> (Vec<Row>, Meta) {
    let field = |line: &str, key: &str| -> Option<String> {
        let start = line.find(&format!("\"{key}\": "))? + key.len() + 4;
        let rest = &line[start..];
        let value = match rest.strip_prefix('"') {
            Some(quoted) => &quoted[..quoted.find('"')?],
            None => &rest[..rest.find([',', '}']).unwrap_or(rest.len())],
        };
        Some(value.to_string())
    };
    let mut meta = Meta { date: String::new(), machine: String::new(), versions: Vec::new() };
    let mut results: Vec<Row> = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("\"date\"") {
            meta.date = field(line, "date").unwrap_or_default();
        } else if line.trim_start().starts_with("\"machine\"") {
            meta.machine = field(line, "machine").unwrap_or_default();
        } else if let (Some(w), Some(c)) = (field(line, "workload"), field(line, "crate")) {
            let Some(workload) = Workload::ALL.into_iter().find(|x| x.name() == w) else { continue };
            let Some(column) = CRATES.iter().position(|(name, _)| *name == c) else { continue };
            let ns = |key| Duration::from_nanos(field(line, key).and_then(|v| v.parse().ok()).unwrap_or(0));
            if results.last().is_none_or(|(last, _)| *last != workload) {
                results.push((workload, vec![None; CRATES.len()]));
            }
            let cells = &mut results.last_mut().expect("pushed above").1;
            cells[column] = Some(Cell { median: ns("median_ns"), min: ns("min_ns"), max: ns("max_ns") });
        }
    }
    (results, meta)
}
