package autopilot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/gocql/gocql"

	"github.com/tsbucket/tsbucket/metrics"
	"github.com/tsbucket/tsbucket/schema"
)

// Options configure Run and a Worker.
type Options struct {
	Session  *gocql.Session
	Keyspace string
	// Policies are the views to size, as a views file writes them
	// (ViewsFile.Autopilot); each is checked against the view as registered
	// in the keyspace, and one bad policy stops the round before anything is
	// applied.
	Policies []schema.AutopilotPolicy
	// Lead is how far ahead of now every change takes effect (default
	// schema.DefaultLead): at least Fleet.MinLead and the repositories'
	// Options.Schemes.Lead, as for schema.Rebucket.
	Lead  time.Duration
	Fleet schema.Fleet
	// DryRun decides and reports, but records and applies nothing.
	DryRun  bool
	Observe ObserveOptions
	Metrics *metrics.Autopilot // nil: none
	Now     func() time.Time
	Logger  *slog.Logger
}

func (o Options) withDefaults() Options {
	if o.Lead <= 0 {
		o.Lead = schema.DefaultLead
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Observe.Now == nil {
		o.Observe.Now = o.Now
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return o
}

// Report is what one round decided and did.
type Report struct {
	At        time.Time
	Decisions []Decision
	// Applied are the actions recorded (none for a dry run); Failed those
	// whose recording failed (the round's error says why).
	Applied, Failed []Action
}

// Run observes, decides and, unless DryRun, applies every policy's view
// once: width changes through schema.Rebucket with the lead, promotions
// through schema.PromoteKey with the lead, blocks (a policy's
// BlockAboveRows) through schema.BlockKey, each recorded in ActionsTable
// with its reason and figures. Policies are checked first; any problem
// (schema.ErrBadPolicy, a view not registered) fails the round with
// nothing applied.
func Run(ctx context.Context, o Options) (Report, error) {
	o = o.withDefaults()
	if o.Session == nil || o.Keyspace == "" {
		return Report{}, fmt.Errorf("%w: a session and a keyspace are required", ErrBadOptions)
	}
	if err := o.Fleet.CheckLead(o.Lead); err != nil {
		return Report{}, err
	}
	views, pols, err := checkPolicies(ctx, o)
	if err != nil {
		return Report{}, err
	}
	rep := Report{At: o.Now().UTC()}
	var errs []error
	for i, p := range pols {
		d, err := o.view(ctx, views[i], p, &rep)
		rep.Decisions = append(rep.Decisions, d)
		errs = append(errs, err)
	}
	err = errors.Join(errs...)
	o.Metrics.Run(err)
	return rep, err
}

// checkPolicies reads the registered views and checks every policy
// against its view, returning both in policy order.
func checkPolicies(ctx context.Context, o Options) ([]schema.View, []schema.AutopilotPolicy, error) {
	registered, err := schema.RegisteredViews(ctx, o.Session, o.Keyspace)
	if err != nil {
		return nil, nil, err
	}
	byName := map[string]schema.View{}
	for _, v := range registered {
		byName[v.Name] = v
	}
	views := make([]schema.View, len(o.Policies))
	pols := make([]schema.AutopilotPolicy, len(o.Policies))
	var errs []error
	for i, p := range o.Policies {
		v, ok := byName[p.View]
		if !ok {
			errs = append(errs, &schema.PolicyError{View: p.View, Field: "view", Msg: fmt.Sprintf("not registered in keyspace %s", o.Keyspace)})
			continue
		}
		views[i] = v
		if pols[i], err = p.Validate(v); err != nil {
			errs = append(errs, err)
		}
	}
	return views, pols, errors.Join(errs...)
}

// view runs one view: observe, decide, export, apply.
func (o Options) view(ctx context.Context, v schema.View, p schema.AutopilotPolicy, rep *Report) (Decision, error) {
	in, err := o.input(ctx, v, p)
	if err != nil {
		return Decision{View: v.Name, State: StateUnknown}, err
	}
	now := in.Now
	d := Decide(in)
	o.Metrics.Observed(metrics.AutopilotView{View: v.Name, Width: d.Width, P99Rows: d.P99Rows, P99Bytes: d.P99Bytes,
		RowsBand: [2]int64{p.Rows.Low, p.Rows.High}, BytesBand: [2]int64{p.Bytes.Low, p.Bytes.High},
		OutOfBand: d.State == StateAbove || d.State == StateBelow, Observed: d.State != StateUnknown})
	var errs []error
	for _, a := range d.Actions {
		if o.DryRun {
			o.Metrics.Action(v.Name, a.Kind, metrics.OutcomeProposed)
			continue
		}
		a, err := o.apply(ctx, a, now)
		if err != nil {
			rep.Failed = append(rep.Failed, a)
			errs = append(errs, err)
			continue
		}
		rep.Applied = append(rep.Applied, a)
	}
	return d, errors.Join(errs...)
}

// input observes v and reads its promoted keys (a PerKeyShards view) and
// blocked keys (a policy with BlockAboveRows): what Decide needs.
func (o Options) input(ctx context.Context, v schema.View, p schema.AutopilotPolicy) (Input, error) {
	in := Input{Policy: p, View: v, Lead: o.Lead}
	var err error
	if v.PerKeyShards {
		if in.Promotions, err = schema.Promotions(ctx, o.Session, o.Keyspace, v.Name); err != nil {
			return in, err
		}
	}
	if p.BlockAboveRows > 0 {
		if in.Blocked, err = schema.BlockedKeys(ctx, o.Session, o.Keyspace, v.Name); err != nil {
			return in, err
		}
	}
	if in.Partitions, err = Observe(ctx, o.Session, o.Keyspace, v, in.Promotions, o.Observe); err != nil {
		return in, err
	}
	in.Now = o.Now()
	return in, nil
}

// apply records a through the path a person would use, then in
// ActionsTable, and counts it. It returns a as recorded: a promotion's
// From may have moved later (timely).
func (o Options) apply(ctx context.Context, a Action, now time.Time) (Action, error) {
	a = o.timely(a)
	err := o.change(ctx, a, now)
	outcome := metrics.OutcomeApplied
	if err != nil {
		outcome = metrics.OutcomeFailed + ": " + err.Error()
		o.Metrics.Action(a.View, a.Kind, metrics.OutcomeFailed)
	} else {
		o.Metrics.Action(a.View, a.Kind, metrics.OutcomeApplied)
		o.Logger.Info("tsbucket: autopilot action", "view", a.View, "kind", a.Kind, "key", a.Key,
			"from", a.From.Format(time.RFC3339Nano), "reason", a.Reason)
	}
	if rerr := record(ctx, o.Session, o.Keyspace, now, a, err == nil, outcome); rerr != nil {
		return a, errors.Join(err, rerr)
	}
	return a, err
}

// timely moves a promotion's From to Lead after the real clock's now when
// the time the round spent since its decision (observing, the actions
// applied before it) left it less than Lead ahead: every instance must
// see a promotion at least the fleet's lead before it takes effect, and
// schema.PromoteKey checks no lead. The action is recorded with the From
// it was given, so the record stays true. Width changes need not move:
// schema.Rebucket checks their From against the real clock (rebucketOptions).
func (o Options) timely(a Action) Action {
	if a.Kind != KindPromote {
		return a
	}
	if now := o.Now(); a.From.Before(now.Add(o.Lead)) {
		a.From = promotionFrom(now, o.Lead)
	}
	return a
}

// rebucketOptions are the options of a width change: the real clock, not
// the round's decision instant, so that Rebucket refuses a From the time
// the round took has brought nearer than the lead.
func (o Options) rebucketOptions() schema.RebucketOptions {
	return schema.RebucketOptions{Lead: o.Lead, Fleet: o.Fleet, Now: o.Now}
}

func (o Options) change(ctx context.Context, a Action, now time.Time) error {
	switch a.Kind {
	case KindWidth:
		next, err := a.NextScheme()
		if err != nil {
			return err
		}
		_, err = schema.Rebucket(ctx, o.Session, o.Keyspace, a.View, a.From, next, o.rebucketOptions())
		return err
	case KindPromote:
		p := schema.Promotion{View: a.View, Key: a.Key, From: a.From, Shards: a.Shards, PromotedAt: now.UTC(), Reason: "autopilot: " + a.Reason}
		_, _, err := schema.PromoteKey(ctx, o.Session, o.Keyspace, p)
		return err
	case KindBlock:
		b := schema.BlockedKey{View: a.View, Key: a.Key, BlockedAt: now.UTC(), Reason: "autopilot: " + a.Reason, Rows: a.Rows}
		return schema.BlockKey(ctx, o.Session, o.Keyspace, b)
	}
	return fmt.Errorf("%w: unknown action kind %q", ErrBadOptions, a.Kind)
}
