//! `<date>`: localized (`form="text"`/`"numeric"`) and style-defined dates, ranges with the
//! range delimiter of the largest differing part, seasons, eras, ordinal days, literals.

use super::item::{self, DateVal};
use super::locale::TermForm;
use super::output::Out;
use super::render::Renderer;
use super::xml::Node;

const PART_ORDER: [&str; 3] = ["year", "month", "day"];

fn part_index(name: &str) -> usize {
    PART_ORDER.iter().position(|p| *p == name).unwrap_or(0)
}

impl<'a> Renderer<'a> {
    // Kept out of `render` (the engine's hub): a smaller function for the wasm tiers to compile.
    #[inline(never)]
    pub fn render_date(&mut self, node: &Node) -> Option<Out> {
        let var = node.attr("variable")?;
        self.vars_called += 1;
        if self.suppressed.contains(var) || self.just_looking && var == "accessed" {
            return None;
        }
        let d = item::date(self.item, var)?;
        if self.in_substitute > 0 {
            self.suppressed.insert(var.to_owned());
        }
        if self.sort_key {
            // A key holds only the parts the element shows.
            self.vars_filled += 1;
            let shown: Vec<usize> = match node.attr("form") {
                Some(_) => match node.attr("date-parts") {
                    Some("year") => vec![0],
                    Some("year-month") => vec![0, 1],
                    _ => vec![0, 1, 2],
                },
                None => node
                    .children_named("date-part")
                    .map(|p| part_index(p.attr("name").unwrap_or("")))
                    .collect(),
            };
            let mut keyed = d.clone();
            for p in &mut keyed.parts {
                for (k, v) in p.iter_mut().enumerate() {
                    if !shown.contains(&k) {
                        *v = 0;
                    }
                }
            }
            return Some(Out::text(keyed.sort_key()));
        }
        if let Some(lit) = &d.literal {
            if d.start()[0] == 0 {
                self.vars_filled += 1;
                return Some(self.decorate(node, Out::text(lit.clone()), true));
            }
        }
        // The parts to render, each with its own attributes.
        let parts: Vec<Node> = match node.attr("form") {
            Some(form) => {
                let wanted = match node.attr("date-parts") {
                    Some("year") => 1,
                    Some("year-month") => 2,
                    _ => 3,
                };
                let base = self.locale.date_format(form).cloned().unwrap_or_default();
                base.children
                    .iter()
                    .filter(|p| p.name == "date-part")
                    .filter(|p| part_index(p.attr("name").unwrap_or("")) < wanted)
                    .map(|p| {
                        let mut p = p.clone();
                        // The style's date-part overrides its attributes (not affixes).
                        if let Some(o) = node
                            .children_named("date-part")
                            .find(|o| o.attr("name") == p.attr("name"))
                        {
                            for (k, v) in &o.attrs {
                                if k == "prefix" || k == "suffix" {
                                    continue;
                                }
                                p.attrs.retain(|(pk, _)| pk != k);
                                p.attrs.push((k.clone(), v.clone()));
                            }
                        }
                        p
                    })
                    .collect()
            }
            None => node.children_named("date-part").cloned().collect(),
        };
        let delimiter = if node.attr("form").is_some() {
            self.locale
                .date_format(node.attr("form").unwrap_or("text"))
                .and_then(|n| n.attr("delimiter"))
                .unwrap_or("")
                .to_owned()
        } else {
            node.attr("delimiter").unwrap_or("").to_owned()
        };
        let start = d.start();
        let end = d.end();
        // Parts with no value at either end render nothing and take no part in ranges.
        let mut parts = parts;
        parts.retain(|p| {
            let has = |x: [i32; 3]| match p.attr("name") {
                Some("year") => x[0] != 0,
                Some("month") => x[1] != 0 || d.season.is_some(),
                Some("day") => x[2] != 0 && x[1] != 0,
                _ => false,
            };
            has(start) || end.is_some_and(has)
        });
        // The largest part shown that differs between the ends (as citeproc-js decides it): a
        // range whose shown parts are equal at both ends ("2019" for March to May 2019 when
        // only the year is shown) renders as one date.
        let differ = end.and_then(|end| {
            (0..3).find(|&i| {
                start.get(i) != end.get(i)
                    && parts
                        .iter()
                        .any(|p| part_index(p.attr("name").unwrap_or("")) == i)
            })
        });
        let mut out;
        match end.zip(differ) {
            None => {
                out = self.date_parts(&parts, start, &d, &delimiter);
                if d.open_end() && !out.is_empty() {
                    let range_delim = parts
                        .iter()
                        .find(|p| p.attr("name") == Some("year"))
                        .and_then(|p| p.attr("range-delimiter"))
                        .unwrap_or("\u{2013}");
                    out.push(Out::text(range_delim));
                }
            }
            Some((end, differ)) => {
                // The parts from the largest that differs down are written twice, joined by
                // that part's range delimiter; the larger ones once, before or after them.
                let varying: Vec<usize> = parts
                    .iter()
                    .enumerate()
                    .filter(|(_, p)| part_index(p.attr("name").unwrap_or("")) >= differ)
                    .map(|(i, _)| i)
                    .collect();
                let first = varying.first().copied().unwrap_or(0);
                let last = varying.last().copied().unwrap_or(0);
                let range_delim = parts
                    .iter()
                    .find(|p| part_index(p.attr("name").unwrap_or("")) == differ)
                    .and_then(|p| p.attr("range-delimiter"))
                    .unwrap_or("\u{2013}")
                    .to_owned();
                let before: Vec<Node> = parts.get(..first).unwrap_or(&[]).to_vec();
                let block: Vec<Node> = parts.get(first..=last).unwrap_or(&[]).to_vec();
                let after: Vec<Node> = parts.get(last + 1..).unwrap_or(&[]).to_vec();
                let mut b1 = block.clone();
                if let Some(l) = b1.last_mut() {
                    l.attrs.retain(|(k, _)| k != "suffix");
                }
                let mut b2 = block;
                if let Some(f) = b2.first_mut() {
                    f.attrs.retain(|(k, _)| k != "prefix");
                }
                // Rendered in reading order (a year suffix goes on the first year written),
                // the date's delimiter between the shared parts and the range as between parts.
                out = self.date_parts(&before, start, &d, &delimiter);
                let mut range = self.date_parts(&b1, start, &d, &delimiter);
                let second_half = self.date_parts(&b2, end, &d, &delimiter);
                if !range.is_empty() && !second_half.is_empty() {
                    range.push(Out::text(range_delim));
                }
                range.extend(second_half);
                join(&mut out, range, &delimiter);
                let tail = self.date_parts(&after, start, &d, &delimiter);
                join(&mut out, tail, &delimiter);
            }
        }
        if out.iter().all(Out::is_empty) {
            return None;
        }
        self.vars_filled += 1;
        let mut content = Out::group(out);
        if node.attr("form").is_some() {
            // Localized formats keep the locale's affixes; the style's own affixes go around.
        }
        content = self.strip_periods(node, content);
        Some(self.decorate(node, content, true))
    }

    fn date_parts(
        &mut self,
        parts: &[Node],
        p: [i32; 3],
        d: &DateVal,
        delimiter: &str,
    ) -> Vec<Out> {
        let mut out: Vec<Out> = Vec::new();
        for part in parts {
            let name = part.attr("name").unwrap_or("");
            let [y, m, day] = p;
            let text = match name {
                "year" => {
                    if y == 0 {
                        None
                    } else {
                        let mut s = match part.attr("form") {
                            Some("short") => format!("{:02}", y.rem_euclid(100)),
                            _ => y.unsigned_abs().to_string(),
                        };
                        if y < 0 {
                            s.push_str(&self.term("bc", TermForm::Long, false));
                        } else if y < 1000 {
                            s.push_str(&self.term("ad", TermForm::Long, false));
                        }
                        if !self.style.renders_year_suffix && !self.year_suffix_done {
                            if let Some(ys) = &self.year_suffix {
                                s.push_str(ys);
                                self.year_suffix_done = true;
                            }
                        }
                        Some(s)
                    }
                }
                "month" if (13..=16).contains(&m) => {
                    Some(self.term(&format!("season-{:02}", m - 12), TermForm::Long, false))
                }
                "month" => {
                    if m == 0 {
                        d.season.as_ref().map(|s| match s.trim().parse::<i32>() {
                            Ok(n) if (1..=4).contains(&n) => {
                                self.term(&format!("season-{n:02}"), TermForm::Long, false)
                            }
                            _ => s.clone(),
                        })
                    } else {
                        let form = part.attr("form").unwrap_or("long");
                        Some(match form {
                            "numeric" => m.to_string(),
                            "numeric-leading-zeros" => format!("{m:02}"),
                            "short" => self.term(&format!("month-{m:02}"), TermForm::Short, false),
                            _ => self.term(&format!("month-{m:02}"), TermForm::Long, false),
                        })
                    }
                }
                "day" => {
                    if day == 0 || m == 0 || m > 12 {
                        None
                    } else {
                        Some(match part.attr("form") {
                            Some("numeric-leading-zeros") => format!("{day:02}"),
                            Some("ordinal") => {
                                if day == 1 || !self.locale.limit_day_ordinals() {
                                    let g = self
                                        .locale
                                        .gender(&format!("month-{m:02}"))
                                        .map(str::to_owned);
                                    format!(
                                        "{day}{}",
                                        self.locale.ordinal_suffix(i64::from(day), g.as_deref())
                                    )
                                } else {
                                    day.to_string()
                                }
                            }
                            _ => day.to_string(),
                        })
                    }
                }
                _ => None,
            };
            let Some(text) = text.filter(|t| !t.is_empty()) else {
                continue;
            };
            if !out.is_empty() && !delimiter.is_empty() {
                out.push(Out::text(delimiter));
            }
            let content = self.strip_periods(part, Out::text(text));
            out.push(self.decorate(part, content, true));
        }
        out
    }
}

/// Appends `piece` to `out`, after `delimiter` when both hold something.
fn join(out: &mut Vec<Out>, piece: Vec<Out>, delimiter: &str) {
    if !piece.is_empty() && !delimiter.is_empty() && !out.is_empty() {
        out.push(Out::text(delimiter));
    }
    out.extend(piece);
}

#[cfg(test)]
mod tests {
    use super::super::{Format, Processor};
    use serde_json::json;

    /// Each date element below with each range, as citeproc-js 2.4 renders them (en-US): a
    /// range collapses to one date when the parts shown are equal at both ends, and shares
    /// the parts larger than the largest shown part that differs.
    #[test]
    fn ranges_render_as_citeproc_js_renders_them() {
        let ranges = [
            json!([[2019, 3], [2019, 5]]),
            json!([[2019], [2019]]),
            json!([[2019, 3, 1], [2019, 3, 9]]),
            json!([[2019, 3, 1], [2019, 5, 9]]),
            json!([[2018, 3], [2019, 5]]),
            json!([[2019, 3], [2019, 3]]),
        ];
        let dates = [
            (
                r#"<date variable="issued"><date-part name="year"/></date>"#,
                ["2019", "2019", "2019", "2019", "2018–2019", "2019"],
            ),
            (
                r#"<date variable="issued" delimiter=" "><date-part name="month" form="short"/><date-part name="year"/></date>"#,
                [
                    "Mar.–May 2019",
                    "2019",
                    "Mar. 2019",
                    "Mar.–May 2019",
                    "Mar. 2018–May 2019",
                    "Mar. 2019",
                ],
            ),
            (
                r#"<date variable="issued" delimiter=" "><date-part name="year"/><date-part name="month" form="short" strip-periods="true"/><date-part name="day"/></date>"#,
                [
                    "2019 Mar–May",
                    "2019",
                    "2019 Mar 1–9",
                    "2019 Mar 1–May 9",
                    "2018 Mar–2019 May",
                    "2019 Mar",
                ],
            ),
            (
                r#"<date variable="issued" delimiter=" "><date-part name="day"/><date-part name="month"/><date-part name="year"/></date>"#,
                [
                    "March–May 2019",
                    "2019",
                    "1–9 March 2019",
                    "1 March–9 May 2019",
                    "March 2018–May 2019",
                    "March 2019",
                ],
            ),
            (
                r#"<date variable="issued" form="text"/>"#,
                [
                    "March–May 2019",
                    "2019",
                    "March 1–9, 2019",
                    "March 1–May 9, 2019",
                    "March 2018–May 2019",
                    "March 2019",
                ],
            ),
            (
                r#"<date variable="issued" form="text" date-parts="year-month"/>"#,
                [
                    "March–May 2019",
                    "2019",
                    "March 2019",
                    "March–May 2019",
                    "March 2018–May 2019",
                    "March 2019",
                ],
            ),
        ];
        for (date, expected) in dates {
            let xml = format!(
                r#"<style xmlns="http://purl.org/net/xbiblio/csl" version="1.0" class="in-text"><citation><layout><text variable="title"/></layout></citation><bibliography><layout>{date}</layout></bibliography></style>"#
            );
            let p = Processor::new(&xml, None).unwrap();
            for (range, want) in ranges.iter().zip(expected) {
                let item = json!({"id": "a", "type": "book", "title": "T", "issued": {"date-parts": range}});
                assert_eq!(
                    p.bibliography(&[item], Format::Text),
                    [want],
                    "{date} {range}"
                );
            }
        }
    }
}
