package config

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Class is what a configuration key can do when a workspace's own
// .yagent/config.yaml sets it and the person has not trusted the
// directory. Every key has exactly one (KeyClasses); the trust gate
// (gate.go) derives what it drops from that table.
type Class int

const (
	// Harmless keys apply from any workspace.
	Harmless Class = iota + 1
	// RunsCode keys start programs (an MCP server's command).
	RunsCode
	// RoutesData keys decide where requests, data or credentials go
	// (base_url, api_key_env, headers, a DSN, whose knowledge base).
	RoutesData
	// Widens keys widen what agents may do without asking (approval,
	// shell_allow, sandbox).
	Widens
	// Exhausts keys bound what a run may use up or destroy (limits,
	// budgets, timeouts, retention): an untrusted value applies only in
	// the direction its Harm says is harmless.
	Exhausts
)

func (c Class) String() string {
	switch c {
	case Harmless:
		return "harmless"
	case RunsCode:
		return "runs code"
	case RoutesData:
		return "routes data or credentials"
	case Widens:
		return "widens permissions"
	case Exhausts:
		return "exhausts or destroys resources"
	}
	return "unclassified"
}

// Harm says which values of an Exhausts key cost more than the value of
// the layers below (the defaults and the person's own file); an equal
// value is always harmless.
type Harm int

const (
	// Larger: a larger value costs more; 0 is the cheapest (off, none).
	Larger Harm = iota + 1
	// ZeroOrLarger: 0 means no limit; a larger value costs more.
	ZeroOrLarger
	// Shorter: a retention (ttl, a count gc keeps): a smaller value other
	// than 0 destroys sooner; 0 means keep everything.
	Shorter
	// Smaller: a floor or an interval: a smaller value (0 included)
	// costs more.
	Smaller
	// AnyChange: both directions cost (a shorter rescue_after reruns
	// delegations, a longer one leaves dead workers' jobs waiting).
	AnyChange
)

// KeyClass is one key's class.
type KeyClass struct {
	Class Class
	// Harm is the harmful direction of an Exhausts key.
	Harm Harm
	// Base is the dotted key whose value an Exhausts key is compared with
	// when the layers below do not set it ("" = the key itself).
	Base string
	// Template is, for a map entry ("models.*"), the entry whose values a
	// new entry starts from ("" = none).
	Template string
}

// KeyClasses gives every key of the configuration its class. A key is
// dotted; "*" stands for any entry of a map (models.*, mcp_servers.*),
// and the class of "X.*" itself is that of a new entry of X. Every key
// a later issue adds (budgets, isolation, hooks…) gets its row here in
// the same commit: TestEveryKeyClassified fails until it has one.
var KeyClasses = map[string]KeyClass{
	"models.*":                    {Class: Harmless, Template: "default"},
	"models.*.base_url":           {Class: RoutesData},
	"models.*.api_key_env":        {Class: RoutesData},
	"models.*.api_key_file":       {Class: RoutesData},
	"models.*.model":              {Class: Harmless},
	"models.*.context_window":     {Class: Exhausts, Harm: Larger},
	"models.*.timeout":            {Class: Exhausts, Harm: Larger},
	"models.*.max_retries":        {Class: Exhausts, Harm: Larger},
	"models.*.provider":           {Class: Harmless},
	"models.*.api":                {Class: Harmless},
	"models.*.reasoning_effort":   {Class: Harmless},
	"models.*.api_version":        {Class: Harmless},
	"models.*.extra_body":         {Class: RoutesData},
	"models.*.extra_headers":      {Class: RoutesData},
	"models.*.drop_params":        {Class: Harmless},
	"models.*.price.input":        {Class: Harmless},
	"models.*.price.cached_input": {Class: Harmless},
	"models.*.price.output":       {Class: Harmless},
	"models.aliases":              {Class: Harmless},

	"blackboard.index_max_notes":     {Class: Exhausts, Harm: Larger},
	"blackboard.index_line_chars":    {Class: Exhausts, Harm: ZeroOrLarger},
	"blackboard.ttl":                 {Class: Exhausts, Harm: Shorter},
	"blackboard.max_notes_per_board": {Class: Exhausts, Harm: Shorter},
	"blackboard.context_pack_chars":  {Class: Exhausts, Harm: ZeroOrLarger},
	"blackboard.max_note_bytes":      {Class: Exhausts, Harm: ZeroOrLarger},

	"notes.enabled":              {Class: Harmless},
	"notes.model":                {Class: Harmless},
	"notes.max_note_chars":       {Class: Exhausts, Harm: Larger},
	"notes.index_enter_chars":    {Class: Exhausts, Harm: Larger},
	"notes.index_enter_notes":    {Class: Exhausts, Harm: Larger},
	"notes.index_leave_chars":    {Class: Exhausts, Harm: Larger},
	"notes.index_leave_notes":    {Class: Exhausts, Harm: Larger},
	"notes.compact_chars":        {Class: Exhausts, Harm: ZeroOrLarger},
	"notes.compact_notes":        {Class: Exhausts, Harm: ZeroOrLarger},
	"notes.compact_target_chars": {Class: Exhausts, Harm: Larger},
	"notes.max_notes":            {Class: Exhausts, Harm: Larger},
	"notes.pinned_chars":         {Class: Exhausts, Harm: ZeroOrLarger},
	"notes.pinned_max":           {Class: Exhausts, Harm: Larger},

	"context.compact_budget":           {Class: Exhausts, Harm: ZeroOrLarger},
	"context.compact_budget_by_kind.*": {Class: Exhausts, Harm: Larger, Base: "context.compact_budget"},
	"context.summary_model":            {Class: Harmless},
	"context.keep_recent_turns":        {Class: Exhausts, Harm: Larger},
	"context.turn_squeeze_percent":     {Class: Exhausts, Harm: ZeroOrLarger},
	"context.wrap_up_reserve_tokens":   {Class: Harmless},
	"context.pressure.window":          {Class: Harmless},
	"context.pressure.wrap_up":         {Class: Harmless},
	"context.pressure.compacted":       {Class: Harmless},

	"chat_sleep.enabled":                  {Class: Harmless},
	"chat_sleep.interval":                 {Class: Exhausts, Harm: Smaller},
	"chat_sleep.min_gap":                  {Class: Exhausts, Harm: Smaller},
	"chat_sleep.retry_after":              {Class: Exhausts, Harm: Smaller},
	"chat_sleep.max_parallel":             {Class: Exhausts, Harm: ZeroOrLarger},
	"chat_sleep.skip_kinds":               {Class: Harmless},
	"chat_sleep.tools.model":              {Class: Harmless},
	"chat_sleep.tools.budget_percent":     {Class: Exhausts, Harm: Smaller},
	"chat_sleep.tools.min_turns":          {Class: Exhausts, Harm: Smaller},
	"chat_sleep.tools.thin_turns":         {Class: Harmless},
	"chat_sleep.tools.windows":            {Class: Harmless},
	"chat_sleep.tools.max_hide_per_night": {Class: Harmless},
	"chat_sleep.tools.core":               {Class: Harmless},

	"toolsets.*": {Class: Harmless},

	"agents.max_steps":                {Class: Exhausts, Harm: Larger},
	"agents.subagent_max_steps":       {Class: Exhausts, Harm: Larger},
	"agents.max_parallel_delegations": {Class: Exhausts, Harm: ZeroOrLarger},
	"agents.max_delegations_per_turn": {Class: Exhausts, Harm: ZeroOrLarger},
	"agents.max_depth":                {Class: Exhausts, Harm: Larger},
	"agents.delegation_token_budget":  {Class: Exhausts, Harm: ZeroOrLarger},
	"agents.stall_repeats":            {Class: Exhausts, Harm: ZeroOrLarger},
	"agents.parallel_tools":           {Class: Exhausts, Harm: ZeroOrLarger},
	"agents.tail_role":                {Class: Harmless},
	"agents.approval":                 {Class: Widens},
	"agents.allow_shell":              {Class: Widens},
	"agents.sandbox":                  {Class: Widens},
	"agents.sandbox_writable":         {Class: Widens},
	"agents.sandbox_visible":          {Class: Widens},
	"agents.sandbox_env":              {Class: RoutesData},
	"agents.shell_allow":              {Class: Widens},
	// none lets writers edit the person's working tree directly; an
	// included path (.env) reaches every writer's worktree.
	"agents.isolation":           {Class: Widens},
	"agents.isolation_include":   {Class: Widens},
	"agents.isolation_max_bytes": {Class: Exhausts, Harm: ZeroOrLarger},
	// false takes the file half of rewind away; nothing an agent may do
	// grows.
	"agents.checkpoints": {Class: Harmless},
	// report starts a turn when a background delegation lands while the
	// person's session is idle, which it would report at the next one
	// anyway; nothing an agent may do grows.
	"agents.on_background_done": {Class: Harmless},

	// A new server starts a program or sends requests to a URL; enabled
	// starts one the person turned off.
	"mcp_servers.*":           {Class: RunsCode},
	"mcp_servers.*.command":   {Class: RunsCode},
	"mcp_servers.*.args":      {Class: RunsCode},
	"mcp_servers.*.env":       {Class: RunsCode},
	"mcp_servers.*.url":       {Class: RoutesData},
	"mcp_servers.*.token_env": {Class: RoutesData},
	// A client id and the variable of its secret: which client the
	// person authorizes, and a secret sent to the authorization server.
	"mcp_servers.*.oauth_client_id":         {Class: RoutesData},
	"mcp_servers.*.oauth_client_secret_env": {Class: RoutesData},
	"mcp_servers.*.timeout":                 {Class: Exhausts, Harm: Larger},
	"mcp_servers.*.enabled":                 {Class: RunsCode},
	"mcp_servers.*.allow":                   {Class: Widens},

	// Whose knowledge base, which database, which tools agents get.
	"kb.enabled":             {Class: Widens},
	"kb.path":                {Class: RoutesData},
	"kb.dsn":                 {Class: RoutesData},
	"kb.person":              {Class: RoutesData},
	"kb.project":             {Class: RoutesData},
	"kb.agent_tools":         {Class: Widens},
	"kb.user_memory":         {Class: Widens},
	"kb.embeddings.model":    {Class: RoutesData},
	"kb.embeddings.endpoint": {Class: RoutesData},

	"queue.dsn":          {Class: RoutesData},
	"queue.rescue_after": {Class: Exhausts, Harm: AnyChange},
	"queue.max_attempts": {Class: Exhausts, Harm: Larger},
	"queue.concurrency":  {Class: Exhausts, Harm: Larger},
	// A shorter lease stops a batch on a brief database outage, a longer
	// one keeps a dead coordinator's run from being resumed.
	"queue.lease": {Class: Exhausts, Harm: AnyChange},
	// A shorter timeout hands a slow but living worker's jobs to another
	// (the work is done twice), a longer one leaves a dead worker's jobs
	// waiting.
	"queue.worker_timeout": {Class: Exhausts, Harm: AnyChange},

	// A workspace may lower a budget, never raise or lift it (0 = no cap)
	// unless trusted.
	"budget.max_cost":   {Class: Exhausts, Harm: ZeroOrLarger},
	"budget.max_tokens": {Class: Exhausts, Harm: ZeroOrLarger},

	"telemetry.endpoint":         {Class: RoutesData},
	"telemetry.headers":          {Class: RoutesData},
	"telemetry.log_content":      {Class: RoutesData},
	"telemetry.export_timeout":   {Class: Exhausts, Harm: Larger},
	"telemetry.shutdown_timeout": {Class: Exhausts, Harm: Larger},
	"telemetry.queue_size":       {Class: Exhausts, Harm: Larger},
	"telemetry.service_name":     {Class: Harmless},
}

// classNode is KeyClasses as a tree: an exact key before "*".
type classNode struct {
	class    *KeyClass
	children map[string]*classNode
}

var classTree = func() *classNode {
	root := &classNode{}
	for key, c := range KeyClasses {
		n := root
		for _, part := range strings.Split(key, ".") {
			if n.children == nil {
				n.children = map[string]*classNode{}
			}
			if n.children[part] == nil {
				n.children[part] = &classNode{}
			}
			n = n.children[part]
		}
		n.class = &c
	}
	return root
}()

func (n *classNode) child(key string) *classNode {
	if c, ok := n.children[key]; ok {
		return c
	}
	return n.children["*"]
}

// ClassOf returns the class of a dotted key ("models.fast.base_url"), or
// false when the table has none.
func ClassOf(key string) (KeyClass, bool) {
	n := classTree
	for _, part := range strings.Split(key, ".") {
		if n = n.child(part); n == nil {
			return KeyClass{}, false
		}
	}
	if n.class == nil {
		return KeyClass{}, false
	}
	return *n.class, true
}

// WorkspaceGatedKeys are the keys an untrusted workspace may not set at
// all (runs code, routes data or credentials, widens permissions), a
// section named whole when none of its keys is harmless; derived from
// KeyClasses. Exhausts keys are not listed: they apply in their harmless
// direction.
var WorkspaceGatedKeys = func() []string {
	var out []string
	var walk func(n *classNode, at []string)
	walk = func(n *classNode, at []string) {
		if !n.hasHarmless() && n.hasGated() {
			out = append(out, strings.Join(at, "."))
			return
		}
		for _, k := range sortedKeys(n.children) {
			walk(n.children[k], append(slices.Clone(at), k))
		}
	}
	for _, k := range sortedKeys(classTree.children) {
		walk(classTree.children[k], []string{k})
	}
	return out
}()

func (n *classNode) hasHarmless() bool {
	if n.class != nil && n.class.Class == Harmless {
		return true
	}
	return slices.ContainsFunc(sortedKeys(n.children), func(k string) bool { return n.children[k].hasHarmless() })
}

func (n *classNode) hasGated() bool {
	if n.class != nil && n.class.Class != Harmless && n.class.Class != Exhausts {
		return true
	}
	return slices.ContainsFunc(sortedKeys(n.children), func(k string) bool { return n.children[k].hasGated() })
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// gate removes from an untrusted workspace layer n (under the dotted path
// at) every key its class keeps from an untrusted directory, comparing an
// Exhausts key with the layers below (base, the merged tree so far), and
// returns the dotted keys it removed. A key the table does not know is
// removed too (fail closed); a mapping the gate empties goes with it.
func gate(n, base *yaml.Node, cls *classNode, at []string) []string {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	var out []string
	for i := 0; i+1 < len(n.Content); {
		k, v := n.Content[i], n.Content[i+1]
		path := append(slices.Clone(at), k.Value)
		c := cls.child(k.Value)
		var removed []string
		drop := false
		switch {
		case c == nil:
			drop = true
		case c.class != nil && len(c.children) > 0 && c.class.Class != Harmless && lookup(base, path...) == nil:
			drop = true // a new entry of a map whose entries are gated (mcp_servers.NEW)
		case len(c.children) == 0:
			drop = c.class.Class != Harmless && (c.class.Class != Exhausts || harmful(*c.class, v, baseValue(base, path, *c.class)))
		case v.Kind != yaml.MappingNode:
			drop = true // a section set to null (or anything but a mapping) would reset every key under it to zero
		case len(v.Content) > 0:
			removed = gate(v, base, c, path)
			drop = len(v.Content) == 0 // the gate emptied it
		}
		if drop {
			n.Content = slices.Delete(n.Content, i, i+2)
			if removed == nil && !emptyCollection(v) {
				removed = []string{strings.Join(path, ".")}
			}
		} else {
			i += 2
		}
		out = append(out, removed...)
	}
	return out
}

func emptyCollection(v *yaml.Node) bool {
	return (v.Kind == yaml.MappingNode || v.Kind == yaml.SequenceNode) && len(v.Content) == 0
}

// baseValue is what the layers below set for path: the key itself, else
// in the map entry a new entry starts from (models.default), else the
// key's Base.
func baseValue(base *yaml.Node, path []string, c KeyClass) *yaml.Node {
	if v := lookup(base, path...); v != nil {
		return v
	}
	n, cls := base, classTree
	for _, part := range path {
		next := cls.child(part)
		if next == nil {
			break
		}
		v := lookup(n, part)
		if v == nil && next.class != nil && next.class.Template != "" {
			v = lookup(n, next.class.Template)
		}
		n, cls = v, next
	}
	if n != nil {
		return n
	}
	if c.Base != "" {
		return lookup(base, strings.Split(c.Base, ".")...)
	}
	return nil
}

// harmful reports whether an Exhausts value v costs more than base (nil =
// unknown: harmful).
func harmful(c KeyClass, v, base *yaml.Node) bool {
	if base == nil {
		return true
	}
	x, ok1 := number(v)
	b, ok2 := number(base)
	if !ok1 || !ok2 {
		return true
	}
	if x == b {
		return false
	}
	switch c.Harm {
	case Larger:
		return x > b
	case ZeroOrLarger:
		return x == 0 || b != 0 && x > b // under no limit (0), any limit is smaller
	case Shorter:
		return x != 0 && (b == 0 || x < b)
	case Smaller:
		return x < b
	}
	return true
}

// number reads an integer, a float or a duration (in nanoseconds).
func number(n *yaml.Node) (float64, bool) {
	if n == nil || n.Kind != yaml.ScalarNode {
		return 0, false
	}
	if i, err := strconv.ParseInt(n.Value, 0, 64); err == nil {
		return float64(i), true
	}
	if f, err := strconv.ParseFloat(n.Value, 64); err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
		return f, true
	}
	if d, err := ParseDuration(n.Value); err == nil {
		return float64(d), true
	}
	return 0, false
}
