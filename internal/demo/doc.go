// Package demo is the engine of `tsbucket demo`: it runs the chat and IoT
// reference workloads of docs/design.md against a cluster through the repo
// package, with Prometheus metrics, and reports what it measured.
//
// Run creates the keyspace (NetworkTopologyStrategy), applies the reference
// migrations, opens one repository per workload and then:
//
//  1. seeds history: messages spread over Config.History and readings over
//     the last two days, written with PutMany, so reads cross buckets;
//  2. purges one channel (Config.Purge messages written, then deleted), so the
//     tombstone metrics have something to count;
//  3. runs the live workload until Config.Duration passes or ctx is done:
//     writers (chat messages, sensor readings), "latest page" readers that
//     open a channel as several viewers at once (identical reads that the
//     repository coalesces), pagers that follow cursors back in history,
//     author and sensor readers, oldest-first range readers of a site,
//     site dashboards (the latest value of each of a site's sensors, from
//     the latest-value view latest_reading_by_sensor), hourly charts of a
//     sensor's last day (aggregates through the hourly rollup, which a
//     worker keeps while the demo runs), and a
//     moderator deleting recent messages. Channels and authors are chosen
//     with a Zipf law (Config.Skew): a few hot keys and many quiet ones.
//     A Config.FaultRate fraction of message writes has its
//     messages_by_author insert fail with an injected write timeout (after
//     Config.FaultTimeout, through repo.Options.WrapExecutor), so the
//     fan-out is partial; such a write is retried whole with the same write
//     timestamp, as docs/design.md decision 2 allows, and counted as a fault, not
//     an error.
//
// Every operation is paced open-loop at its configured rate by a bounded
// pool of workers; a tick that finds every worker busy is dropped and
// counted as "behind", so memory stays bounded however slow the cluster is.
// Latencies go to log-linear histograms of fixed size (about 6% precision).
//
// Run returns a Summary whether the run ends by its deadline or by ctx
// (Ctrl-C): stopping early is not an error. Operations cut short by the
// stop are neither counted nor timed.
package demo
