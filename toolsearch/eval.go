package toolsearch

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Catalog is one server's lists as written by scripts/catalogdump: the raw
// tool, resource, resource template and prompt objects exactly as the server
// published them.
type Catalog struct {
	Server            string            `json:"server"`
	Package           string            `json:"package"`
	Tools             []json.RawMessage `json:"tools"`
	Resources         []json.RawMessage `json:"resources,omitempty"`
	ResourceTemplates []json.RawMessage `json:"resourceTemplates,omitempty"`
	Prompts           []json.RawMessage `json:"prompts,omitempty"`
}

// DocKey names a doc in an evaluation set: "server/tool" for a tool,
// "server/resource:URI", "server/template:URITEMPLATE" or
// "server/prompt:NAME" for the other kinds.
func DocKey(d Doc) string {
	switch d.Kind {
	case KindResource, KindTemplate:
		return d.Connection + "/" + d.Kind + ":" + d.URI
	case KindPrompt:
		return d.Connection + "/" + d.Kind + ":" + d.Name
	}
	return d.Connection + "/" + d.Name
}

// LoadCatalogs reads every *.json catalog in dir, in file-name order, and
// returns the catalogs and their tools, resources, resource templates and
// prompts as Docs whose Connection is the server name.
func LoadCatalogs(dir string) ([]Catalog, []Doc, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, nil, fmt.Errorf("list catalogs: %w", err)
	}
	sort.Strings(files)
	var cats []Catalog
	var docs []Doc
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, nil, fmt.Errorf("read catalog: %w", err)
		}
		var c Catalog
		if err := json.Unmarshal(data, &c); err != nil {
			return nil, nil, fmt.Errorf("decode catalog %s: %w", f, err)
		}
		if c.Server == "" {
			c.Server = strings.TrimSuffix(filepath.Base(f), ".json")
		}
		lists := []struct {
			what  string
			items []json.RawMessage
			doc   func(string, json.RawMessage) (Doc, error)
		}{
			{"tool", c.Tools, DocFromRaw},
			{"resource", c.Resources, DocFromResource},
			{"resource template", c.ResourceTemplates, DocFromTemplate},
			{"prompt", c.Prompts, DocFromPrompt},
		}
		for _, l := range lists {
			for i, raw := range l.items {
				d, err := l.doc(c.Server, raw)
				if err != nil {
					return nil, nil, fmt.Errorf("catalog %s %s %d: %w", f, l.what, i, err)
				}
				docs = append(docs, d)
			}
		}
		cats = append(cats, c)
	}
	return cats, docs, nil
}

// EvalSet is the query file: each query with every acceptable doc named by
// DocKey ("server/tool", "server/resource:URI", "server/prompt:NAME", ...).
// Every query is run over all kinds together, as a search without a type is.
type EvalSet struct {
	Description string `json:"description,omitempty"`
	// Servers, when set, indexes only these catalogs (by server name): a
	// set written for one configuration ("everything, filesystem and
	// memory") is measured over that configuration's docs alone.
	Servers []string    `json:"servers,omitempty"`
	Queries []EvalQuery `json:"queries"`
}

// EvalQuery is one query of an EvalSet.
type EvalQuery struct {
	Query  string   `json:"query"`
	Kind   string   `json:"kind,omitempty"` // exact, typo, paraphrase, task
	Expect []string `json:"expect"`
}

// Report is the outcome of Evaluate.
type Report struct {
	Catalogs, Tools int
	// Others counts the resources, resource templates and prompts indexed
	// beside the tools.
	Others           int
	Queries          int
	Top1, Top3, Top5 int    // queries with an acceptable doc first / in the first three / five
	Misses           []Miss // queries whose first hit is not acceptable, in file order
}

// Miss is a query whose first hit was not an acceptable tool.
type Miss struct {
	Query  string
	Expect []string
	Got    []string // the first five hits as "server/tool"
	Rank   int      // 1-based rank of the first acceptable hit, 0 if none
}

// Top1Rate and Top5Rate are the fractions of queries hit at 1 and 5.
func (r Report) Top1Rate() float64 { return rate(r.Top1, r.Queries) }

// Top3Rate is the fraction of queries with an acceptable doc in the first three.
func (r Report) Top3Rate() float64 { return rate(r.Top3, r.Queries) }

// Top5Rate is the fraction of queries with an acceptable tool in the first five.
func (r Report) Top5Rate() float64 { return rate(r.Top5, r.Queries) }

func rate(k, n int) float64 {
	if n == 0 {
		return 0
	}
	return float64(k) / float64(n)
}

// String prints the rates and then one line per miss.
func (r Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d queries over %d tools and %d resources/templates/prompts in %d catalogs: top-1 %d/%d (%.1f%%), top-3 %d/%d (%.1f%%), top-5 %d/%d (%.1f%%)\n",
		r.Queries, r.Tools, r.Others, r.Catalogs,
		r.Top1, r.Queries, 100*r.Top1Rate(), r.Top3, r.Queries, 100*r.Top3Rate(), r.Top5, r.Queries, 100*r.Top5Rate())
	for _, m := range r.Misses {
		rank := "not in top 5"
		if m.Rank > 0 {
			rank = fmt.Sprintf("rank %d", m.Rank)
		}
		fmt.Fprintf(&b, "miss (%s) %q want %s got %s\n",
			rank, m.Query, strings.Join(m.Expect, "|"), strings.Join(m.Got, ", "))
	}
	return b.String()
}

// Evaluate indexes every catalog in catalogDir, runs each query of evalFile
// and counts how often an acceptable tool ranks first and in the first five.
func Evaluate(catalogDir, evalFile string) (Report, error) {
	return evaluate(catalogDir, evalFile, defaultModel)
}

func evaluate(catalogDir, evalFile string, m model) (Report, error) {
	cats, docs, err := LoadCatalogs(catalogDir)
	if err != nil {
		return Report{}, err
	}
	data, err := os.ReadFile(evalFile)
	if err != nil {
		return Report{}, fmt.Errorf("read eval set: %w", err)
	}
	var set EvalSet
	if err := json.Unmarshal(data, &set); err != nil {
		return Report{}, fmt.Errorf("decode eval set: %w", err)
	}
	if len(set.Servers) > 0 {
		cats, docs, err = onlyServers(cats, docs, set.Servers)
		if err != nil {
			return Report{}, fmt.Errorf("eval set %s: %w", evalFile, err)
		}
	}
	known := map[string]bool{}
	r := Report{Catalogs: len(cats), Queries: len(set.Queries)}
	for _, d := range docs {
		known[DocKey(d)] = true
		if d.Kind == KindTool {
			r.Tools++
		} else {
			r.Others++
		}
	}
	ix := newIndex(docs, m)
	for _, q := range set.Queries {
		want := map[string]bool{}
		for _, e := range q.Expect {
			if !known[e] {
				return Report{}, fmt.Errorf("eval query %q expects %s, which no catalog lists", q.Query, e)
			}
			want[e] = true
		}
		hits := ix.Search(q.Query, 5)
		got := make([]string, len(hits))
		rank := 0
		for i, h := range hits {
			got[i] = DocKey(docs[h.Doc])
			if rank == 0 && want[got[i]] {
				rank = i + 1
			}
		}
		if rank == 1 {
			r.Top1++
		}
		if rank >= 1 && rank <= 3 {
			r.Top3++
		}
		if rank >= 1 {
			r.Top5++
		}
		if rank != 1 {
			r.Misses = append(r.Misses, Miss{Query: q.Query, Expect: q.Expect, Got: got, Rank: rank})
		}
	}
	return r, nil
}

// onlyServers keeps the catalogs and docs of the named servers.
func onlyServers(cats []Catalog, docs []Doc, servers []string) ([]Catalog, []Doc, error) {
	var keptCats []Catalog
	for _, name := range servers {
		found := false
		for _, c := range cats {
			if c.Server == name {
				keptCats = append(keptCats, c)
				found = true
			}
		}
		if !found {
			return nil, nil, fmt.Errorf("servers names %q, which no catalog is", name)
		}
	}
	var keptDocs []Doc
	for _, d := range docs {
		if contains(servers, d.Connection) {
			keptDocs = append(keptDocs, d)
		}
	}
	return keptCats, keptDocs, nil
}
