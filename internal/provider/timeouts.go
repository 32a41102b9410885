package provider

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

// The timeouts block of the lifecycle resources (terraform-plugin-framework-
// timeouts): each operation's context gets the configured deadline, which
// reaches the engine; the engine cancels cleanly (temporary files removed,
// processes killed), and the error names the attribute to raise.

// Operation names, as in the timeouts block.
const (
	opCreate = "create"
	opRead   = "read"
	opUpdate = "update"
	opDelete = "delete"
)

// opDefault is one operation of a timeouts block: its default and what it
// bounds, for the description ("copying the directory").
type opDefault struct {
	def  time.Duration
	what string
	// defText, when set, replaces the default in the description (a
	// default computed from another attribute).
	defText string
}

// timeoutsBlock is the `timeouts` block with the given operations, each
// described with its default and checked at plan time: a duration that
// does not parse, or is not positive, is an error on the attribute.
func timeoutsBlock(ctx context.Context, ops map[string]opDefault) schema.Block {
	opts := timeouts.Opts{}
	desc := func(op string, d opDefault) string {
		def := d.defText
		if def == "" {
			def = fmt.Sprintf("`%q`", shortDuration(d.def))
		}
		return fmt.Sprintf("How long %s may take: a duration such as `\"30s\"`, `\"10m\"` or `\"1h30m\"`; default %s. "+
			"On expiry the work is cancelled cleanly (no partial file left, no process left running) and the operation "+
			"fails asking to raise `timeouts.%s`.", d.what, def, op)
	}
	for op, d := range ops {
		switch op {
		case opCreate:
			opts.Create, opts.CreateDescription = true, desc(op, d)
		case opRead:
			opts.Read, opts.ReadDescription = true, desc(op, d)
		case opUpdate:
			opts.Update, opts.UpdateDescription = true, desc(op, d)
		case opDelete:
			opts.Delete, opts.DeleteDescription = true, desc(op, d)
		}
	}
	b, ok := timeouts.Block(ctx, opts).(schema.SingleNestedBlock)
	if !ok {
		panic("timeouts.Block is no longer a SingleNestedBlock")
	}
	attrs := make(map[string]schema.Attribute, len(b.Attributes))
	for name, a := range b.Attributes {
		s, ok := a.(schema.StringAttribute)
		if !ok {
			panic("timeouts attribute " + name + " is no longer a string")
		}
		s.MarkdownDescription = s.Description
		s.Validators = append(append([]validator.String{}, s.Validators...), positiveDuration{})
		attrs[name] = s
	}
	b.Attributes = attrs
	b.MarkdownDescription = "Per-operation time limits (see each attribute for its default)."
	return b
}

// shortDuration prints d as a timeouts value: "20m" rather than "20m0s".
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = s[:len(s)-2]
	}
	if strings.HasSuffix(s, "h0m") {
		s = s[:len(s)-2]
	}
	return s
}

// positiveDuration refuses a zero or negative timeout at plan time (the
// library's own validator already refuses what does not parse).
type positiveDuration struct{}

func (positiveDuration) Description(context.Context) string { return "must be a positive duration" }

func (v positiveDuration) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (positiveDuration) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if d, err := time.ParseDuration(req.ConfigValue.ValueString()); err == nil && d <= 0 {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid timeout",
			fmt.Sprintf("%q is not a positive duration: write one such as \"30s\" or \"10m\".", req.ConfigValue.ValueString()))
	}
}

// opTimer bounds one operation by its timeouts value.
type opTimer struct {
	op      string
	timeout time.Duration
	ctx     context.Context
}

// startOp returns ctx bounded by the op timeout of t (def when unset), and
// its cancel function. A timeout that cannot be read is a diagnostic and
// leaves ctx unbounded.
func startOp(ctx context.Context, t timeouts.Value, op string, def time.Duration, diags *diag.Diagnostics) (context.Context, context.CancelFunc, *opTimer) {
	var (
		d  time.Duration
		ds diag.Diagnostics
	)
	switch op {
	case opCreate:
		d, ds = t.Create(ctx, def)
	case opRead:
		d, ds = t.Read(ctx, def)
	case opUpdate:
		d, ds = t.Update(ctx, def)
	default:
		d, ds = t.Delete(ctx, def)
	}
	diags.Append(ds...)
	if ds.HasError() || d <= 0 {
		d = def
	}
	octx, cancel := context.WithTimeout(ctx, d)
	return octx, cancel, &opTimer{op: op, timeout: d, ctx: octx}
}

// expired reports whether the operation ran out of time.
func (o *opTimer) expired() bool {
	return o != nil && errors.Is(o.ctx.Err(), context.DeadlineExceeded)
}

// finish turns the errors of an operation that ran out of time into one
// error on timeouts.<op> saying which limit to raise, with what the
// operation was doing when it was stopped; other diagnostics stay.
func (o *opTimer) finish(what string, diags *diag.Diagnostics) {
	if !o.expired() || !diags.HasError() {
		return
	}
	var (
		kept   diag.Diagnostics
		detail string
	)
	for _, d := range *diags {
		if d.Severity() != diag.SeverityError {
			kept = append(kept, d)
			continue
		}
		if detail == "" {
			detail = d.Summary() + ": " + d.Detail()
		}
	}
	kept.AddAttributeError(path.Root("timeouts").AtName(o.op),
		fmt.Sprintf("Timed out after %s: raise timeouts.%s", shortDuration(o.timeout), o.op),
		fmt.Sprintf("%s did not finish within timeouts.%s = %q and was cancelled: nothing partial was left in place and "+
			"every process it started was stopped. Raise timeouts.%s and apply again.\n\nStopped while: %s",
			what, o.op, shortDuration(o.timeout), o.op, detail))
	*diags = kept
}

// cleanupContext is for undoing what a failed operation did: ctx's values
// without its deadline or cancellation, bounded on its own.
func cleanupContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), 2*time.Minute)
}
