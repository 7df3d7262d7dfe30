// Package toolsearch ranks MCP tools, resources, resource templates and
// prompts for a task stated in words.
//
// dispatch shows an agent one tool; the agent finds the downstream tools
// only through its search action, so a miss here is a failed task. The
// package is pure and deterministic, imports only the standard library and
// dispatch/uritemplates (the RFC 6570 match dispatch reads resources with),
// and never logs: results and errors go to the caller.
//
// # Documents
//
// A Doc is one tool: connection (opaque), name, title, description,
// parameter names and descriptions (nested properties dotted, string enum
// values appended to the description), and the annotation hints that are
// true. DocFromRaw builds one from a raw tools/list object.
//
// A Doc may also be a resource, a resource template or a prompt (Kind):
// DocFromResource, DocFromTemplate and DocFromPrompt build them from the raw
// resources/list, resources/templates/list and prompts/list objects. Their
// name, title and description are indexed as a tool's; a resource's URI
// words, a template's {variables} and a prompt's arguments as parameters. A
// file extension leaves a resource's name ("features.md" is about
// features) for a kind field (weight 1.0) that also holds the kind and words
// for the mimeType ("markdown document", "binary blob data"). A pasted URI
// names its resource as a name names its tool. Search ranks every kind
// together; SearchKinds keeps some kinds, while every doc still counts for
// term rarity.
//
// # Terms
//
// Text is split into words on every non-alphanumeric character and inside
// camelCase ("getURLForPage" → get url for page), so snake_case, kebab-case,
// dotted and slash names all split. Stop words (function words and agent
// filler: "please", "I want to", "can you") and bare numbers are dropped.
// Words are stemmed by a light English suffix stripper (plurals, -ing, -ed,
// -ion, final -e, a short list of irregular forms): list/lists/listing meet,
// and so do create/creating/creation. A multi-word name is also indexed
// whole ("kubectl_logs"), as one term.
//
// # Scoring: BM25F
//
// Each tool has eight fields, each with a weight and a length normalization
// (model.go): name 3.0, title 1.5, description 1.0, parameter names 0.6,
// parameter descriptions 0.4, annotations 0.1, kind 1.0 (above) and lead
// 1.0: the description's first 24 terms once more, with little length
// normalization, because that is where a tool says what it is for and the
// rest of a long description (pages of usage notes) would otherwise drown
// it. A term's frequency in a tool
// is the weighted, length-normalized sum over fields, saturated with k1 =
// 1.2, times the term's idf. The idf counts only the name, title and
// description, because parameter names such as "type" or "query" are shared
// by tools that do different things.
//
// # Queries
//
// A query becomes concepts, one per content word. Each concept has variants:
// the word's stem (weight 1), related words from a small table of general
// verbs and nouns of tool use (related.go: remove/delete, make/create/new,
// folder/directory, screenshot/capture, shell/bash/process, ...; weight 0.8), vocabulary terms
// the stem is a prefix of (0.5), and, only for a word of 5+ letters that
// neither it nor any relative is known, vocabulary terms within one edit (two
// from 8 letters; a swap of neighbours counts one) at 0.7. A variant's idf is
// capped at that of the agent's own word, so a rare synonym is never worth
// more than the word used. A concept scores the best of its variants in a
// tool, so a word with many relatives counts no more than one with none.
// Also:
//
//   - abbreviations are expanded (PR → pull request, repo, dir, k8s, ...);
//   - related words of one query merge into one concept ("make a new
//     folder" asks for creation once, not twice);
//   - a capitalized word inside the query is a proper name ("Boston"):
//     matched as written, never expanded or corrected;
//   - a pasted value stands for its kind: a URL for "url", a glob for
//     "pattern", a path for "path", a file name ("notes.md") for "file",
//     #name for "channel", @name for "user"; the words of a URL, path or
//     file name, what a file name's extension holds ("text" for .md) and
//     the name after "named"/"called" are literal concepts (model.literal,
//     0.7): matched as written and left out of coordination, since they
//     are the task's data, not its words;
//   - a proper name also asks for "name" (a tool that finds by name);
//   - "when was/did ..." asks for a time; phrasal verbs mean what the
//     phrase means ("look at" → view, "look for" → search);
//   - a word after "between", "among", "from" or "within" qualifies the
//     object and weighs model.modifier (0.6): "delete a relation between
//     entities" is about a relation;
//   - two neighbouring words the index knows as one word ("wrap up" →
//     wrapup, "starts up" → startup) also match that word.
//
// A tool's score is the sum over concepts, then multiplied by
// (1 + name coverage), the idf-weighted share of the tool's name words the
// query reaches (a name is a verb and an object: reaching both says the
// query is about that tool), and by (0.5 + 0.5 × the share of concepts
// matched), so a tool matching every part of the task beats one matching a
// single part very well. A tool whose title or description opening says it
// is deprecated keeps 0.8 of its score, so its replacement ranks above it.
// A tool whose name holds a verb of opposite intent to one the request uses
// (related.go, oppositeGroups: delete for remember/store/add, stop/kill for
// start/run, uninstall for install, ...) keeps 0.5 of its score unless the
// request also asks for that verb: "remember that ..." does not want
// delete_observations, however much text they share.
//
// # Order
//
// Tools whose name equals the query word for word (so "browser take
// screenshot" equals "browser_take_screenshot") come first, then resources
// whose URI the query pastes and templates a pasted URI is an RFC 6570
// expansion of (dispatch/uritemplates; only templates whose scheme is
// written out, at most maxPastedURIs URIs a query), then tools whose title
// equals it, then the rest by score. Ties are broken by connection,
// then name, then position, so results do not depend on the order docs were
// given in. An empty query has no hits.
//
// # Evaluation
//
// Evaluate runs the queries of testdata/search-eval.json over the real
// catalogs in testdata/catalogs (collected by scripts/collect-catalogs.sh)
// and reports top-1, top-3 and top-5 hit rates with every miss.
// TestSearchQuality gates them; TestSearchQualityResources gates
// testdata/search-eval-resources.json (resources and prompts, top-3 >= 90%);
// TestSearchQualityReview7 gates testdata/search-eval-rev7.json (top-1 >=
// 90%, top-3 >= 95%), run over the three servers the set names;
// TestSearchHoldout, TestSearchHoldoutIssue12 and TestSearchHoldoutReview7
// report queries never used for tuning (toolsearch/testdata/holdout-eval.json,
// testdata/search-holdout.json, testdata/search-holdout-rev7.json);
// TestSweepModel (TOOLSEARCH_SWEEP=1) shows how each parameter moves the
// rates.
//
// # Saving
//
// Index.MarshalBinary and LoadIndex save a built index and load it back
// with the same answers (TestLoadIndex_SameAnswers runs every evaluation
// query through both), so that a one-shot search need not build it again.
// The format carries persistVersion and the ranking model; change
// persistVersion with anything that changes what New builds (the analyzer,
// stop words, related words), since an index saved before would otherwise
// load. Everything read is checked: a bad file is an error wrapping
// ErrIndexFormat.
package toolsearch
