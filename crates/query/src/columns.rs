//! What each output column of an aggregation *is*, for a consumer that draws the rows rather
//! than writes them (the CLI's `-o chart`): a group key (and whether it is a `time()`
//! bucket, with its length), an aggregate (and which), or an expression computed per group.
//! Also the two time calculations such a consumer needs in the plan's `--tz` zone: the bucket
//! an instant falls in, and an instant written with a strftime format.
//!
//! Nothing here changes how a plan evaluates; it only reads the compiled plan.

use crate::func::AggFunc;
use crate::ir::Ex;
use crate::plan::Plan;
use crate::time::{self, TimeFn, Zone};
use crate::value::Val;

/// What an output column of an aggregating plan holds ([`Plan::column_roles`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColumnRole {
    /// A `group by` expression that is a `time(d)` / `time(x, d)` bucket with a literal
    /// duration: the bucket's length in nanoseconds.
    Bucket(i128),
    /// Any other `group by` expression.
    Key,
    /// An aggregate by itself (aliased or not).
    Aggregate(AggKind),
    /// An expression computed per group (`count(*) * 100 / sum(n)`, a literal...).
    Computed,
}

/// Which aggregate a column is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AggKind {
    /// `count(*)`, `count(x)`, `count_if(c)`.
    Count,
    /// `sum(x)`.
    Sum,
    /// `avg(x)`.
    Avg,
    /// `min(x)`.
    Min,
    /// `max(x)`.
    Max,
    /// `percentile(x, p)`.
    Percentile,
    /// `count_distinct(x)`.
    CountDistinct,
}

impl Plan {
    /// Whether the query aggregates (`group by`, or an aggregate in `select`, `having` or
    /// `order by`): one row per group.
    pub fn aggregates(&self) -> bool {
        self.grouped
    }

    /// What each column of [`Plan::columns`] is, in order; empty when the query does not
    /// aggregate ([`Plan::aggregates`]).
    pub fn column_roles(&self) -> Vec<ColumnRole> {
        if !self.grouped || self.lines {
            return Vec::new();
        }
        self.out
            .iter()
            .map(|ex| match ex {
                Ex::Key(i) => match self.group_by.get(*i) {
                    Some(Ex::Time(TimeFn::Bucket, _, Some(every), _)) => match &**every {
                        Ex::Const(Val::Dur(ns)) if *ns > 0 => ColumnRole::Bucket(*ns),
                        _ => ColumnRole::Key,
                    },
                    _ => ColumnRole::Key,
                },
                Ex::Agg(i) => match self.aggs.get(*i).map(|a| a.func) {
                    Some(AggFunc::Count | AggFunc::CountIf) => {
                        ColumnRole::Aggregate(AggKind::Count)
                    }
                    Some(AggFunc::Sum) => ColumnRole::Aggregate(AggKind::Sum),
                    Some(AggFunc::Avg) => ColumnRole::Aggregate(AggKind::Avg),
                    Some(AggFunc::Min) => ColumnRole::Aggregate(AggKind::Min),
                    Some(AggFunc::Max) => ColumnRole::Aggregate(AggKind::Max),
                    Some(AggFunc::Percentile) => ColumnRole::Aggregate(AggKind::Percentile),
                    Some(AggFunc::CountDistinct) => ColumnRole::Aggregate(AggKind::CountDistinct),
                    None => ColumnRole::Computed,
                },
                _ => ColumnRole::Computed,
            })
            .collect()
    }

    /// The zone timestamps are written in (`--tz`; UTC when none was given).
    pub fn zone(&self) -> &Zone {
        &self.zone
    }
}

impl Zone {
    /// The start of the `time(ns, every)` bucket holding `ns`, counted as `time()` counts in
    /// this zone; `None` when `every` is not positive or the start is out of range.
    pub fn bucket_start(&self, ns: i128, every: i128) -> Option<i128> {
        time::bucket(ns, every, self)
    }

    /// The start of the step of `every` holding `ns`, for labels on a time axis: as
    /// [`Zone::bucket_start`], but a step of whole days in a zone starts at a local midnight
    /// (counted in local days from 1970-01-01) whatever its length, not only `1d` and `1w`.
    pub fn calendar_start(&self, ns: i128, every: i128) -> Option<i128> {
        time::calendar_step(ns, every, self)
    }

    /// `ns` written with a strftime format in this zone (`None` for a format jiff refuses or
    /// an instant out of range).
    pub fn strftime(&self, ns: i128, format: &str) -> Option<String> {
        time::strftime(ns, format, self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roles(q: &str) -> Vec<ColumnRole> {
        Plan::compile(q).unwrap().column_roles()
    }

    #[test]
    fn roles_name_buckets_keys_and_aggregates() {
        use AggKind::*;
        use ColumnRole::*;
        let minute = 60_000_000_000;
        assert_eq!(
            roles("select time(1m) as m, count(*), max(E) as top group by m"),
            [Bucket(minute), Aggregate(Count), Aggregate(Max)]
        );
        assert_eq!(
            roles("select time(@t, 5m), @l, avg(E) group by 1, 2"),
            [Bucket(5 * minute), Key, Aggregate(Avg)]
        );
        assert_eq!(
            roles(
                "select s, count_if(s > 1), sum(n), min(n), percentile(n, 99), \
                 count_distinct(x), count(*) * 2 group by s"
            ),
            [
                Key,
                Aggregate(Count),
                Aggregate(Sum),
                Aggregate(Min),
                Aggregate(Percentile),
                Aggregate(CountDistinct),
                Computed
            ]
        );
        assert!(roles("select a, b").is_empty());
        assert!(roles("select a order by a").is_empty());
        assert!(!Plan::compile("select a").unwrap().aggregates());
        assert!(Plan::compile("select count(*)").unwrap().aggregates());
    }

    #[test]
    fn zone_buckets_and_formats_as_time_does() {
        let zone = Zone::named("Europe/Paris").unwrap();
        let t = crate::parse_bound("2026-11-21T10:07:30Z", 0, &Zone::utc()).unwrap();
        let start = zone.bucket_start(t, 300_000_000_000).unwrap();
        assert_eq!(zone.strftime(start, "%H:%M").as_deref(), Some("11:05"));
        let day = Zone::utc().bucket_start(t, 86_400_000_000_000).unwrap();
        assert_eq!(
            Zone::utc().strftime(day, "%Y-%m-%d %H:%M").as_deref(),
            Some("2026-11-21 00:00")
        );
        assert_eq!(zone.bucket_start(t, 0), None);
    }
}
