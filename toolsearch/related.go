package toolsearch

import (
	"slices"
	"strings"
)

// abbreviations are rewritten into their full words before a query is
// scored; the abbreviation itself is kept as an equal alternative of the
// first word, since some tools use it verbatim ("repo", "pr").
var abbreviations = map[string][]string{
	"pr":     {"pull", "request"},
	"prs":    {"pull", "request"},
	"mr":     {"merge", "request"},
	"repo":   {"repository"},
	"repos":  {"repository"},
	"dir":    {"directory"},
	"dirs":   {"directory"},
	"db":     {"database"},
	"env":    {"environment"},
	"envs":   {"environment"},
	"config": {"configuration"},
	"k8s":    {"kubernetes"},
	"kb":     {"knowledge", "base"},
	"msg":    {"message"},
	"img":    {"image"},
	"pic":    {"picture"},
	"info":   {"information"},
	"ns":     {"namespace"},
	"svc":    {"service"},
	"deploy": {"deployment"},
	"doc":    {"document"},
	"docs":   {"documentation"},
	"js":     {"javascript"},
	"auth":   {"authentication"},
	"org":    {"organization"},
	"orgs":   {"organization"},
	"cmd":    {"command"},
	"ci":     {"check", "status"},
	"lat":    {"latitude"},
	"lng":    {"longitude"},
	"lon":    {"longitude"},
}

// relatedGroups lists general words that an agent uses interchangeably when
// it states a task. Every word of a group is related to every other word of
// the same group; a word may sit in several groups. The table is about
// everyday verbs and nouns of tool use, not about particular tools.
var relatedGroups = [][]string{
	// verbs of managing things
	{"delete", "remove", "erase", "destroy", "discard", "purge", "forget", "uninstall", "drop"},
	{"create", "make", "new", "add", "generate", "post", "open", "raise"},
	{"add", "append", "insert", "attach", "include", "push"},
	{"get", "fetch", "retrieve", "read", "obtain", "load", "download", "show", "view", "display", "see", "open", "inspect", "return"},
	{"list", "enumerate", "show", "browse", "all", "index"},
	{"find", "search", "lookup", "look", "query", "locate", "discover", "seek", "filter", "match", "grep"},
	{"update", "modify", "change", "edit", "patch", "set", "alter", "adjust", "replace", "rewrite"},
	{"run", "execute", "exec", "invoke", "perform", "trigger", "launch", "call", "evaluate", "eval", "start"},
	{"write", "save", "store", "persist", "put", "record", "dump", "overwrite"},
	{"rename", "move", "relocate", "mv"},
	{"copy", "duplicate", "clone", "fork"},
	{"close", "quit", "exit", "shut", "stop", "end", "terminate", "kill", "cancel"},
	{"send", "post", "publish", "share", "notify", "message", "tell"},
	{"reply", "respond", "answer", "thread"},
	{"describe", "detail", "explain", "inspect", "info", "information", "metadata", "about", "property", "stat"},
	{"check", "status", "progress", "state", "health", "verify", "poll"},
	{"count", "number", "statistic", "stat", "aggregate", "total", "tally", "metric", "many"},
	{"sum", "add", "plus", "total", "calculate", "compute", "arithmetic"},
	{"compress", "zip", "gzip", "archive", "pack", "compression"},
	{"echo", "repeat", "return", "back"},
	{"remember", "memorize", "memory", "recall", "knowledge", "fact", "note", "observation"},
	{"think", "reason", "reflect", "plan", "thought", "step", "sequential", "problem"},
	{"analyze", "analysis", "diagnose", "debug", "investigate", "root", "cause", "troubleshoot"},
	{"research", "investigate", "study", "report", "deep", "comprehensive"},
	{"wait", "pause", "sleep", "delay", "until", "appear"},
	{"approve", "review", "accept", "lgtm", "sign"},
	{"resolve", "fix", "close", "done", "solve", "ignore"},
	{"merge", "combine", "join", "integrate"},
	{"link", "relation", "relationship", "connect", "association", "associate", "edge"},
	{"monitor", "watch", "track", "observe", "schedule", "recurring", "change"},
	{"scrape", "extract", "fetch", "crawl", "harvest", "content", "parse"},
	{"crawl", "spider", "site", "website", "entire", "whole"},
	{"parse", "convert", "extract", "pdf", "document"},
	{"scale", "replica", "resize", "instance"},
	{"rollback", "rollout", "undo", "revert", "restore", "roll", "previous"},
	{"upload", "attach", "drop"},
	{"resize", "bigger", "smaller", "size", "dimension", "width", "height", "viewport"},
	{"compare", "diff", "difference"},
	{"toggle", "enable", "disable", "turn", "activate", "deactivate", "on", "off"},
	{"pattern", "regex", "regexp", "glob", "wildcard"},
	{"startup", "start", "boot", "initialization", "initialize"},
	{"architecture", "design", "structure", "layout", "internal", "internally", "organization"},
	{"simple", "basic", "minimal", "plain", "trivial"},
	{"instruction", "usage", "howto", "tutorial", "help"},
	{"feature", "capability", "functionality"},
	{"viewport", "screen", "window", "device", "mobile", "phone", "emulate", "emulation"},
	// things
	{"file", "document"},
	{"directory", "folder", "path"},
	{"tree", "structure", "hierarchy", "recursive", "recursively", "nested"},
	{"image", "picture", "photo", "graphic", "illustration", "drawing", "media", "png", "jpeg", "jpg"},
	{"draw", "paint", "illustrate", "render", "image", "generate", "picture"},
	{"screenshot", "capture", "screen", "screengrab", "snapshot"},
	{"message", "chat", "post", "text", "dm"},
	{"channel", "room", "conversation", "chat"},
	{"history", "recent", "log", "timeline", "past", "previous"},
	{"log", "logs", "logging", "console", "output", "stdout", "stderr"},
	{"react", "reaction", "emoji", "emoticon", "thumb", "like"},
	{"user", "person", "member", "account", "profile", "people", "everyone", "who", "teammate"},
	{"label", "tag", "category"},
	{"issue", "bug", "ticket", "problem", "defect"},
	{"error", "exception", "crash", "failure", "event", "issue", "problem"},
	{"comment", "note", "remark", "annotation", "feedback"},
	{"repository", "project", "codebase", "repo"},
	{"commit", "revision", "changeset", "history"},
	{"code", "source", "function", "snippet", "symbol", "implementation"},
	{"configuration", "config", "setting", "option", "preference"},
	{"environment", "variable", "env"},
	{"web", "internet", "online", "website", "webpage", "site"},
	{"url", "link", "uri", "address", "href", "website", "site"},
	{"page", "webpage", "tab", "site"},
	{"browser", "web", "tab", "page"},
	{"navigate", "go", "visit", "open", "browse", "load"},
	{"back", "previous", "history", "return"},
	{"click", "press", "tap", "button", "submit"},
	{"type", "enter", "input", "fill", "key", "keyboard", "text"},
	{"form", "field", "input"},
	{"dropdown", "select", "option", "choose", "pick", "combobox"},
	{"dialog", "alert", "popup", "modal", "prompt", "confirm"},
	{"hover", "mouse", "mouseover"},
	{"drag", "drop", "move"},
	{"request", "network", "http", "traffic", "call"},
	{"javascript", "script", "code", "js"},
	{"paper", "article", "publication", "academic", "scholar", "scientific", "journal", "study"},
	{"credit", "balance", "usage", "quota", "billing", "remaining", "left"},
	{"documentation", "doc", "docs", "manual", "reference", "guide", "api", "example"},
	{"library", "package", "module", "framework", "sdk", "dependency"},
	{"sql", "query", "database", "db", "table", "row", "select", "postgres", "postgresql"},
	{"news", "current", "latest", "recent", "article"},
	// places and travel
	{"direction", "route", "navigation", "drive", "driving", "walk", "walking", "transit"},
	{"geocode", "coordinate", "latitude", "longitude", "location", "position", "gps"},
	{"address", "location", "place", "street"},
	{"distance", "travel", "far", "duration", "time", "long", "matrix"},
	{"elevation", "altitude", "height", "high"},
	{"place", "business", "shop", "store", "restaurant", "venue", "nearby", "local", "near", "cafe", "poi"},
	// clusters
	{"pod", "container"},
	{"deployment", "workload", "app", "application"},
	{"exec", "shell", "command", "terminal", "run", "bash", "zsh", "powershell", "cli", "process", "program"},
	{"manifest", "yaml", "spec", "resource"},
	{"node", "machine", "host", "server"},
	{"drain", "cordon", "uncordon", "maintenance", "evict"},
	{"context", "cluster", "kubeconfig", "switch"},
	{"forward", "port", "tunnel", "proxy", "expose"},
	{"install", "deploy", "setup", "chart", "helm"},
}

// oneWay relations: the key suggests the listed words but not the other way
// round (a "popup" is a dialog, but a "dialog" search should not pull in
// every tool that mentions "open").
var oneWay = map[string][]string{
	"everything": {"all", "entire", "whole"},
	"whole":      {"all", "entire"},
	"several":    {"multiple", "many", "batch"},
	"multiple":   {"several", "many", "batch"},
	"bulk":       {"multiple", "batch"},
	"big":        {"large", "size"},
	"large":      {"size"},
	"size":       {"information", "metadata"},
	"contents":   {"content", "inside"},
	"inside":     {"content", "read"},
	"person":     {"entity"},
	"bigger":     {"resize"},
	"folder":     {"directory"},
	"altitude":   {"elevation"},
	"picture":    {"image"},
	"photo":      {"image"},
	"mind":       {"remember", "memory"},
	"doc":        {"document"},
}

// namingWords introduce a name the agent gives: the word after them is a
// value ("a folder called backups", "files named report"), not a word of
// the task.
var namingWords = setOf("named", "called", "titled")

// genericValueWords are words of pasted values that say nothing about
// them: every web address has them.
var genericValueWords = setOf("http", "https", "www", "com")

// questionWords stand for the kind of answer they ask for, when they ask
// (an auxiliary follows): "when was this file modified" asks for a time.
// They are stop words otherwise.
var questionWords = map[string][]string{
	"when": {"time", "date"},
}

// modifierPrepositions start a phrase that qualifies the object named
// before them ("a relation between entities", "the rows of a table").
var modifierPrepositions = setOf("between", "among", "from", "within")

// determiners may stand between a preposition and its noun.
var determiners = setOf("a", "an", "the", "this", "that", "these", "those", "my", "your", "our", "their", "its", "some", "any", "each", "every", "all", "two", "both")

// auxiliaries after a question word make it a question ("when was",
// "when did"), not a conjunction ("what happens when the server starts").
var auxiliaries = setOf("is", "are", "was", "were", "do", "does", "did", "has", "have", "had", "will")

// phrasalVerbs are verbs whose particle changes what they mean: "look at"
// a file is to view it, "look for" one to search for it.
var phrasalVerbs = map[string]string{
	"look at":  "view",
	"look for": "search",
	"turn on":  "enable",
	"turn off": "disable",
}

// fileExtensions are the extensions that make a query word a file name,
// each with what such a file holds: "notes.md" is a text file, so a tool
// that reads text files fits it better than one that reads any file.
var fileExtensions = map[string]string{
	"md": "text", "txt": "text", "json": "text", "yaml": "text", "yml": "text", "toml": "text",
	"csv": "text", "tsv": "text", "xml": "text", "html": "text", "htm": "text", "log": "text",
	"ini": "text", "cfg": "text", "conf": "text", "go": "text", "py": "text", "ts": "text",
	"tsx": "text", "jsx": "text", "rs": "text", "java": "text", "rb": "text", "c": "text",
	"h": "text", "cpp": "text", "sh": "text",
	"png": "image", "jpg": "image", "jpeg": "image", "gif": "image", "svg": "image", "webp": "image",
	"mp3": "audio", "wav": "audio", "mp4": "video",
	"pdf": "document", "docx": "document", "xlsx": "document", "pptx": "document",
	"zip": "archive", "gz": "archive", "tar": "archive",
}

// relatedTo returns the stems of the words related to stem t. The table
// it reads, related_table.go, is buildRelated(relatedGroups, oneWay)
// written out by TestRelatedTables: stemming the groups on each run cost a
// warm one-shot search about 1 ms (6% of its CPU) and 100 page faults, and
// a static table costs nothing at all to load.
func relatedTo(t string) []string { return lookupStems(relatedTable[:], t) }

// buildRelated builds the related table from the groups as written, for
// TestRelatedTables.
func buildRelated(groups [][]string, directed map[string][]string) map[string][]string {
	sets := map[string]map[string]bool{}
	addEdge := func(a, b string) {
		if a == b {
			return
		}
		if sets[a] == nil {
			sets[a] = map[string]bool{}
		}
		sets[a][b] = true
	}
	for _, g := range groups {
		stems := make([]string, len(g))
		for i, w := range g {
			stems[i] = stem(w)
		}
		for _, a := range stems {
			for _, b := range stems {
				addEdge(a, b)
			}
		}
	}
	for k, vs := range directed {
		for _, v := range vs {
			addEdge(stem(k), stem(v))
		}
	}
	out := make(map[string][]string, len(sets))
	for k, set := range sets {
		list := make([]string, 0, len(set))
		for v := range set {
			list = append(list, v)
		}
		sortStrings(list)
		out[k] = list
	}
	return out
}

// oppositeGroups pairs verbs of opposite intent: a query that asks to keep
// something ("remember", "save", "add") is not answered by a tool whose
// name says it removes it, however much of their text they share ("delete
// observations from entities in the knowledge graph"). Each pair is two
// lists; every word of one is opposite to every word of the other.
var oppositeGroups = [][2][]string{
	{{"create", "make", "new", "add", "remember", "memorize", "store", "save", "record", "insert", "write", "append", "keep", "note",
		"link", "connect", "relate", "associate"},
		{"delete", "remove", "erase", "destroy", "purge", "forget", "clean", "clear", "drop", "discard"}},
	{{"open", "start", "launch", "begin", "run", "spawn", "new"},
		{"close", "stop", "kill", "terminate", "end", "quit", "cancel", "abort"}},
	{{"enable", "activate"}, {"disable", "deactivate"}},
	{{"install"}, {"uninstall"}},
	{{"upload", "push"}, {"download", "pull"}},
	{{"attach"}, {"detach"}},
	{{"link", "connect"}, {"unlink", "disconnect"}},
	{{"lock"}, {"unlock"}},
	{{"subscribe"}, {"unsubscribe"}},
}

// oppositeTo returns the stems of opposite intent to stem t, from
// buildOpposite(oppositeGroups) written out as for relatedTo.
func oppositeTo(t string) []string { return lookupStems(oppositeTable[:], t) }

// stemList is a stem and the stems it maps to, an entry of a table sorted
// by stem.
type stemList struct {
	stem  string
	stems []string
}

// lookupStems returns the stems table maps t to, or nil.
func lookupStems(table []stemList, t string) []string {
	i, found := slices.BinarySearchFunc(table, t, func(e stemList, t string) int { return strings.Compare(e.stem, t) })
	if !found {
		return nil
	}
	return table[i].stems
}

func buildOpposite(groups [][2][]string) map[string][]string {
	out := map[string][]string{}
	for _, g := range groups {
		for side := 0; side < 2; side++ {
			for _, a := range g[side] {
				for _, b := range g[1-side] {
					out[stem(a)] = append(out[stem(a)], stem(b))
				}
			}
		}
	}
	return out
}
