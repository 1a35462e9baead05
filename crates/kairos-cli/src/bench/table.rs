//! The markdown tables every benchmark prints: a heading line, an alignment line, then one line
//! per row, cells separated by ` | ` and not padded (so a row can be printed as soon as it is
//! measured).

/// The columns of a markdown table.
#[derive(Default)]
pub struct Table {
    /// (heading, right-aligned).
    columns: Vec<(String, bool)>,
}

impl Table {
    /// No columns yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// A column of text (left-aligned).
    pub fn left(mut self, heading: impl Into<String>) -> Self {
        self.columns.push((heading.into(), false));
        self
    }

    /// A column of numbers (right-aligned).
    pub fn right(mut self, heading: impl Into<String>) -> Self {
        self.columns.push((heading.into(), true));
        self
    }

    /// The heading line and the alignment line.
    pub fn head(&self) -> String {
        let rule: Vec<&str> = self
            .columns
            .iter()
            .map(|(_, right)| if *right { "---:" } else { "---" })
            .collect();
        format!(
            "{}\n|{}|",
            line(self.columns.iter().map(|(h, _)| h.as_str())),
            rule.join("|")
        )
    }

    /// The line of one row, a cell per column.
    pub fn row<S: AsRef<str>>(&self, cells: &[S]) -> String {
        debug_assert_eq!(cells.len(), self.columns.len(), "one cell per column");
        line(cells.iter().map(|c| c.as_ref()))
    }
}

fn line<'a>(cells: impl Iterator<Item = &'a str>) -> String {
    let cells: Vec<&str> = cells.collect();
    format!("| {} |", cells.join(" | "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prints_markdown() {
        let t = Table::new().left("name").right("seconds");
        assert_eq!(t.head(), "| name | seconds |\n|---|---:|");
        assert_eq!(t.row(&["calendar", "0.25"]), "| calendar | 0.25 |");
    }
}
