package mappings

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/internal/spec"
)

// file is the mapping file's format: every key, its type, documentation
// and the checks that need no other file. The reference in
// docs/mappings.md and `mcp-bridge mappings schema` are generated from it;
// load.go reads the decoded values, with the checks that need the set the
// file is layered over (known dialects, the words they have).
var file = mappingSpec()

// Schema returns the JSON Schema (draft 2020-12) of a mapping file, for
// editors. It checks the keys, their types and the canonical values; the
// loader checks the rest (dialects, paths, what a dialect can express).
func Schema() []byte { return file.Schema() }

// Reference returns the key reference of mapping files in Markdown,
// generated from the spec.
func Reference() []byte { return file.Reference() }

func mappingSpec() *spec.Spec {
	root := spec.Object("", "",
		spec.String("dialect", "The dialect `vocabulary` and `declare` speak of: a built-in one, one an earlier file declared, or the one `declare` names.").
			Named("a dialect name").DefaultIs("none; required with `vocabulary` or `declare`"),
		vocabularySpec(),
		section(spec.Map("aliases", "Per dialect, the id its messages use for an agent: canonical agent id to the dialect's id. Two canonical ids may not map to one dialect id.",
			spec.Map("", "", spec.String("", "").Named("the dialect's id for the agent")).
				NamedFor(func(dialect string) string {
					return "a mapping of canonical agent ids to the ids " + dialect + " uses"
				}).Typed("map of strings")).
			Named("a mapping of dialects to their aliases").Typed("map of dialect to map of strings")),
		section(spec.List("operations", "One operation's name in each dialect. A request from a dialect whose name matches an entry takes the target's name from the same entry; the latest file's entry wins. fuse writes `capability/action`.",
			spec.Map("", "", spec.String("", "").Named("the operation's name in the dialect")).
				Named("a mapping of dialects to the operation's name in each").Typed("map of dialect to name")).
			Named("a list of entries, each naming one operation in several dialects").Typed("list of maps of dialect to name")),
		section(spec.List("rewrites", "Payload edits by path, each rule on the translations its `when` matches, in order.", rewriteSpec()).
			Named("a list of rules, each with when and do").Typed("list of rules")),
		section(spec.Map("acts", "Per target dialect, what happens to an act it cannot express: `reject` (an error back to the sender), `drop` (nothing is delivered; the log says why), or `{send_as: ACT}` (written as an act it can express). Without a policy such a message is rejected.",
			spec.Map("", "", policySpec()).CheckKey(checkAct).
				Named("a mapping of acts to policies (reject, drop, or {send_as: ACT})").Typed("map of act to policy")).
			Named("a mapping of target dialects to their act policies").Typed("map of dialect to map of act to policy")),
		declareSpec(),
	)
	return &spec.Spec{
		Root:        root,
		Title:       "mcp-bridge mapping file",
		Description: "A mapping file layered over the dialects' defaults (`--mapping FILE`, `mappings:` in the serve config); docs/mappings.md is the reference.",
		Noun:        "mapping file",
		Shape:       "a mapping file is a YAML mapping",
	}
}

// section makes an optional part of the file: absent, it is not there.
func section(n *spec.Node) *spec.Node { return n.DefaultIs("none") }

// vocabularySpec is vocabulary: one table per kind.
func vocabularySpec() *spec.Node {
	tables := make([]*spec.Node, len(kindOrder))
	for i, kind := range kindOrder {
		tables[i] = tableSpec(kind)
	}
	return section(spec.Object("vocabulary", "The words of the file's `dialect`, by table. A table replaces the dialect's table of that kind, keeping the words it does not change.", tables...).
		Named("a mapping of table kinds").Unknown(func(string) string { return "unknown table kind" }))
}

// tableSpec is one vocabulary table of kind.
func tableSpec(kind string) *spec.Node {
	values := canonical.CanonicalValues(kind)
	value := spec.Enum("", "", values...).Named("a canonical " + kind)
	return section(spec.Object(kind, fmt.Sprintf("The dialect's words for the canonical %s values (%s).", tableNoun[kind], strings.Join(values, ", ")),
		section(spec.Map("words", "The dialect's word: the canonical value it means. The first word a file gives a value is the one written; giving an existing word another value moves it.", value).
			Named("a mapping of words to canonical values")),
		section(spec.Map("nearest", "Canonical values with no word of their own: the word written instead, reported as approximated.",
			spec.String("", "").Named("a word of the dialect")).CheckKey(canonicalKey(kind)).
			Named("a mapping of canonical values to words")),
		spec.Bool("fold_case", "Words match whatever their case.").DefaultIs("the table's before; `false` for a new one").
			Refused(func(string) string { return "must be true or false" }),
	).Named("a mapping of words, nearest, fold_case"))
}

// tableNoun names the canonical vocabulary of each table kind.
var tableNoun = map[string]string{
	canonical.KindAct:      "act",
	canonical.KindOutcome:  "outcome",
	canonical.KindError:    "error code",
	canonical.KindPriority: "priority",
}

// canonicalKey checks that a key is a canonical value of kind.
func canonicalKey(kind string) func(string) string {
	allowed := canonical.CanonicalValues(kind)
	return func(k string) string {
		if slices.Contains(allowed, k) {
			return ""
		}
		return fmt.Sprintf("%q is not a canonical %s (want one of %s)", k, kind, strings.Join(allowed, ", "))
	}
}

// checkAct checks that a key is a canonical act.
func checkAct(k string) string { return canonicalKey(canonical.KindAct)(k) }

// policySpec is what happens to an act a dialect cannot express.
func policySpec() *spec.Node {
	const what = "reject, drop, or {send_as: ACT}"
	return spec.OneOf("", "",
		spec.Enum("", "", PolicyReject, PolicyDrop).Refused(func(string) string { return "must be " + what }),
		spec.Object("", "Write the act as another.",
			spec.Enum(PolicySendAs, "The act written instead: one the dialect can express.", canonical.CanonicalValues(canonical.KindAct)...).
				Named("a canonical act").Required("a policy object says send_as: ACT"),
		),
	).Named(what).Typed("`reject`, `drop` or `{send_as: ACT}`")
}

// rewriteSpec is one rewrite rule.
func rewriteSpec() *spec.Node {
	dialect := func(key, doc string) *spec.Node { return spec.String(key, doc).Named("a dialect").DefaultIs("any") }
	return spec.Object("", "A rule: the translations it applies to, and its edits.",
		section(spec.Object("when", "Which translations the rule applies to; every key is optional, and an empty `when` matches every translation.",
			dialect("from", "The dialect translated from."),
			dialect("to", "The dialect translated into. A rule whose `to` cannot express its `act` can never match, and is an error."),
			spec.Enum("act", "The message's canonical act.", canonical.CanonicalValues(canonical.KindAct)...).Named("a canonical act").DefaultIs("any"),
			spec.String("operation", "The operation's name as the source dialect spells it (fuse: `capability/action`).").Named("an operation name").DefaultIs("any"),
		).Named("a mapping (from, to, act, operation)")),
		spec.List("do", "The edits, applied in order to the payload. A path starts with the payload field it edits (`arguments`, `result`, `context`, `metadata`, `inputs`, `authentication`, `extensions` or `error.details`), then plain member names or array indexes joined by dots.", editSpec()).
			NonEmpty().Named("a list of edits (rename, move, set, delete, wrap, unwrap)").Typed("list of edits").Required("a rule needs do: a list of edits"),
	).Named("a mapping (when, do)")
}

// editSpec is one edit of a rule: a mapping of one key, the edit's name.
func editSpec() *spec.Node {
	const edits = "rename, move, set, delete, wrap, unwrap"
	path := func(key, doc string) *spec.Node {
		return spec.String(key, doc).Named("a payload path (arguments.x.y)").Required("the edit needs " + key)
	}
	member := func(key, doc string) *spec.Node {
		return spec.String(key, doc).Named("a member name").Required("the edit needs " + key)
	}
	return spec.Object("", "An edit: one of its keys.",
		section(spec.Object(EditRename, "Give a member another name in the same object.",
			path("path", "The member, inside a payload field."), member("to", "Its new name."))),
		section(spec.Object(EditMove, "Move a value to another path, in any payload field.",
			path("from", "The value's path."), path("to", "Where it goes."))),
		section(spec.Object(EditSet, "Set a path to a value.",
			path("path", "The path set."), spec.Any("value", "Any YAML value, written as JSON.").Required("the edit needs value"))),
		section(spec.String(EditDelete, "Remove a path.").Named("a payload path (arguments.x.y)")),
		section(spec.Object(EditWrap, "Replace the value at `path` by `{key: value}`.",
			path("path", "The value wrapped."), member("key", "The member that holds it."))),
		section(spec.String(EditUnwrap, "Replace the object holding the path by the value at the path (`{\"analysis\": v, ...}` becomes `v`).").Named("a payload path (arguments.x.y)")),
	).Choice("one edit per item: %s (line %d) and %s; give one", "an edit is one of "+edits, EditRename, EditMove, EditSet, EditDelete, EditWrap, EditUnwrap).
		Unknown(func(string) string { return "unknown edit" }).Named("a mapping of one edit (" + edits + ")")
}

// declareSpec is declare: a dialect defined by the file alone.
func declareSpec() *spec.Node {
	return section(spec.Object("declare", "A new dialect, named by `dialect`, defined by this file alone: how its messages are recognised, where each canonical concept sits in them, and which members they must have. Its words are the file's `vocabulary`. The name may not be a built-in dialect's.",
		section(spec.Map("detect", "The members that mark the dialect's messages: member path to the value it holds (`\"*\"`: present). The encoder writes them on every message; a `\"*\"` mark must also be a field path.",
			spec.String("", "").Named(`the value that marks the dialect ("*": present)`)).CheckKey(checkMemberPath).
			Named("a mapping of member paths to the values that mark the dialect").Typed("map of path to value")),
		section(spec.Map("fields", "Canonical concept: the dotted member path that holds it. `act` is required; no two concepts share a path, a path is not both a value and an object holding others, and every word concept (act, priority, outcome, error.code) needs words in the file's vocabulary.",
			spec.String("", "").Named("a member path").Check(checkMemberPath)).CheckKey(checkConcept).
			Named("a mapping of canonical concepts to member paths").Typed("map of concept to path")),
		section(spec.List("required", "The member paths every message must have: field paths or detect marks.",
			spec.String("", "").Named("a member path")).Named("a list of member paths").Typed("list of paths")),
	).Named("a mapping (detect, fields, required)"))
}

// checkMemberPath checks a member path of a declaration: plain names
// joined by dots.
func checkMemberPath(p string) string {
	for _, seg := range strings.Split(p, ".") {
		if seg == "" || strings.ContainsAny(seg, `*?#|@\"`) {
			return fmt.Sprintf("malformed path %q: plain member names joined by dots", p)
		}
	}
	return ""
}

// checkConcept checks that a key is a concept a declared dialect may
// place.
func checkConcept(k string) string {
	c, ok := canonical.ParseConcept(k)
	if _, can := DeclarableConcepts[c]; !ok || !can {
		return fmt.Sprintf("not a concept a declared dialect can place (want one of %s)", strings.Join(declarableNames(), ", "))
	}
	return ""
}
