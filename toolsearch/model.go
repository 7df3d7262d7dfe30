package toolsearch

// field is one part of a tool that is indexed with its own weight.
type field int

const (
	fieldName field = iota
	fieldTitle
	fieldDescription
	fieldParamName
	fieldParamDescription
	fieldAnnotation
	// fieldKind holds what a resource or prompt is rather than what it is
	// called: "prompt", "resource", and words for its mimeType ("markdown
	// document", "binary blob").
	fieldKind
	// fieldLead is the opening of the description (its first leadTerms
	// terms), where a tool says what it is for; the rest of a long
	// description is usage notes whose length would otherwise drown it.
	fieldLead
	numFields
)

// model holds the ranking parameters. There is one, defaultModel; the type
// exists so that tests can measure how sensitive the ranking is to each
// parameter.
type model struct {
	// fieldWeight and fieldB are the BM25F weight and length normalization
	// of each field.
	fieldWeight, fieldB [numFields]float64
	// k1 is the BM25 term-frequency saturation.
	k1 float64
	// Weights of the terms a query word is expanded into, relative to the
	// word itself: related words, prefix completions, typo corrections.
	related, prefix, fuzzy float64
	// nameCoverage is how much a tool's score grows when the query reaches
	// every word of its name (weighted by idf): score × (1 + nameCoverage ×
	// share reached).
	nameCoverage float64
	// coord is how much a tool's score depends on matching every concept
	// of the query: score × (1 - coord + coord × share matched).
	coord float64
	// deprecated multiplies the score of a tool that says it is deprecated,
	// so that its replacement ranks above it.
	deprecated float64
	// literal is the weight of the words of a pasted value (a URI, path or
	// file name, a name given after "named"), relative to the task's words.
	literal float64
	// modifier is the weight of a word that qualifies the object ("between
	// entities") rather than naming it.
	modifier float64
	// opposite multiplies the score of a tool whose name holds a verb of
	// opposite intent to one the query uses ("delete" for "remember"),
	// unless the query also asks for that verb.
	opposite float64
}

// defaultModel: the name is what an agent is most likely to say; parameter
// text and annotation hints only help to break ties.
var defaultModel = model{
	//                name title desc pname pdesc annot kind lead
	fieldWeight:  [numFields]float64{3.0, 1.5, 1.0, 0.6, 0.4, 0.1, 1.0, 1.0},
	fieldB:       [numFields]float64{0.5, 0.5, 0.75, 0.75, 0.75, 0, 0, 0.3},
	k1:           1.2,
	related:      0.8,
	prefix:       0.5,
	fuzzy:        0.7,
	nameCoverage: 1.0,
	coord:        0.5,
	deprecated:   0.8,
	opposite:     0.5,
	literal:      0.7,
	modifier:     0.6,
}
