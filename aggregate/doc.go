// Package aggregate computes per-interval aggregates of a view's numeric
// columns: count, sum, min, max, avg, first and last per hour, per day or
// any fixed interval, over a time range, in either direction.
//
// # The answer
//
// Read walks the view with the repository's own reads (every bucket, shard
// and bucket scheme in force, exactly as repo.Repo.All does) and folds the
// items into one interval at a time: memory holds one page of items and one
// interval's accumulators, whatever the range. An interval without items
// yields no row.
//
// Intervals are a fixed grid aligned to the Unix epoch in UTC (an interval
// of an hour starts on the hour, of a day at 00:00 UTC), or calendar days of
// a time zone (Step.Calendar), which last 23 or 25 hours across a change of
// daylight saving time. The grid does not move with the range: the first and
// last intervals of a range that does not start or end on the grid cover
// only the items inside the range, and a Row says so (Row.Partial).
//
// # Exactness
//
// Every function is computed from every item the range holds, so an
// aggregate equals what a loop over the raw items computes:
//   - integer columns (tinyint, smallint, int, bigint, counter) are summed
//     exactly, in 128 bits, so a running total that passes int64 on the way
//     does not matter: a sum past int64 is an error (ErrOverflow), not a
//     wrapped number, and whether it is one depends on the items alone, not
//     on their order; an average is taken from the exact sum (the average
//     of values whose sum is past int64 is no error);
//   - float and double columns are summed exactly (Shewchuk's partials, as
//     Python's math.fsum) and rounded once: a sum is the exact sum
//     correctly rounded, the same float whatever the order of the items,
//     the direction of the read or how the range was split; a partial sum
//     of finite values past float64 is an error (ErrOverflow), as in
//     math.fsum, not an infinity or a NaN (infinite values keep IEEE
//     rules: +Inf and -Inf sum to NaN);
//   - first and last are by the item's time (its ID), not by the direction
//     of the read;
//   - a null value, and a NaN, is skipped by every function but count(*),
//     which counts items.
//
// # Cost
//
// A raw aggregate reads every row of the range: a month of one reading per
// 10 s is 259,200 rows in pages of Query.PageSize. Query.Stats counts the
// requests and rows it took.
//
// # Rollups
//
// A rollup (schema.Rollup, added with repo.Repo.AddRollups) stores per key
// and interval what the accumulators hold: count, the int64 sum or the
// exact-sum partials, min, max, first and last. Roller, the worker, rolls
// the closed intervals of its keys and recomputes those a late write or
// delete marked dirty. A read with Query.UseRollups takes a rollup row for
// each interval the range covers whole that is rolled and not dirty, and
// reads the rest raw: the same answer, bit for bit, from one row per
// interval where the rollup is current (docs/design.md, "Rollups").
package aggregate
