// Command tsbucket runs the tsbucket demo and helps size, create, check,
// read, inspect, repair, backfill and roll up the time-bucketed tables of
// any tsbucket keyspace.
//
//	tsbucket demo     run the chat and IoT workloads against a cluster (or one it starts)
//	tsbucket plan     size the buckets of a view from its busiest key (--views FILE --view V: judge its width)
//	tsbucket schema   print, apply or check the schema of a views file, or check a keyspace's registered views;
//	                  rebucket changes a view's bucket width from an instant on, drop drops a view or the keyspace
//	tsbucket views    list the views registered in a keyspace
//	tsbucket read     read one key of a registered view: latest N, a time range, either direction, by cursor
//	tsbucket inspect  buckets and rows of a key of a registered view, or a table's partition size estimates
//	tsbucket repair   re-derive the other views of a key's time range from a base view
//	tsbucket backfill fill views added to a populated keyspace from a base view, every key
//	tsbucket rollup   run the rollup worker of a views file's rollup once: roll closed intervals, backfill, recompute dirty ones
//	tsbucket hotkeys  list the keys a per-key sharded view promoted to its shards, or promote one
//	tsbucket autopilot keep each view's p99 partition in its band: change widths, promote hot keys (--dry-run: only print)
//	tsbucket help     usage of a command
//
// Views come from a views file (--views FILE, docs/views-file.md), from the
// reference views embedded in the command (--workload chat|iot|rides|all),
// or from the keyspace itself: schema apply registers every view's
// definition, and views, read, inspect, repair and schema check read them
// back, so they work on any tsbucket keyspace without a file.
//
// Exit status: 0 on success, 1 when the command failed (or found schema
// drift, or no bucket width fits, or plan --view's width does not fit), 2 on
// a usage error (bad flags, a bad views file, an unknown view, a bad key,
// time or cursor).
package main
