package deploy

// The autopilot's panels (package autopilot): fed only by a process that
// runs an autopilot.Worker (or registers metrics.NewAutopilot for
// tsbucket autopilot runs), hence NeedsAutopilot.
const (
	autopilotWidth   = "Autopilot: width in force"
	autopilotBand    = "Autopilot: p99 partition vs band"
	autopilotActions = "Autopilot: actions"
	// NeedsAutopilot is what the autopilot panels need: a process running
	// the autopilot.
	NeedsAutopilot = "an autopilot"
)

func autopilotSection() section {
	sel := "{" + client + "}"
	return section{"Autopilot", false, []panelSpec{
		{autopilotWidth, "The bucket width of each view as the autopilot last read it; it steps when a width change it recorded takes effect.", "s",
			[]querySpec{{"max by (table) (tsbucket_autopilot_width_seconds" + sel + ")", "{{table}}"}}},
		{autopilotBand, "Rows of the p99 partition of the latest closed buckets, fleet-wide, against the policy's band; out of band for long fires TsbucketAutopilotOutOfBand.", "short",
			[]querySpec{{"max by (table) (tsbucket_autopilot_p99_partition_rows" + sel + ")", "p99 {{table}}"},
				{"max by (table, bound) (tsbucket_autopilot_band_rows" + sel + ")", "band {{bound}} {{table}}"}}},
		{autopilotActions, "Width changes and key promotions per hour, by outcome (applied, proposed by a dry run, failed).", "short",
			[]querySpec{{"sum by (table, kind, outcome) (increase(tsbucket_autopilot_actions_total" + sel + "[1h]))", "{{table}} {{kind}} {{outcome}}"}}},
	}}
}
