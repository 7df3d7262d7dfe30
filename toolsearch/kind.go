package toolsearch

import (
	"path"
	"strings"
)

// maxExtLen is the longest file extension that indexedName strips from a
// resource's name ("architecture.md", "data.json").
const maxExtLen = 5

// indexedName is the part of a doc's name that is indexed as its name, and
// the file extension cut off it. A resource named "features.md" is about
// features: leaving "md" in its name would halve the name coverage of every
// query that asks for the features document.
func indexedName(d Doc) (name, ext string) {
	if d.Kind != KindResource && d.Kind != KindTemplate {
		return d.Name, ""
	}
	ext = path.Ext(d.Name)
	if len(ext) < 2 || len(ext) > maxExtLen+1 || len(ext) == len(d.Name) {
		return d.Name, ""
	}
	return strings.TrimSuffix(d.Name, ext), ext[1:]
}

// mimeWords says in words what a mimeType or file extension is, for the
// agent that asks for "the markdown document" or "binary data".
var mimeWords = map[string]string{
	"markdown":     "markdown document",
	"md":           "markdown document",
	"plain":        "text",
	"txt":          "text",
	"html":         "html page",
	"json":         "json data",
	"octet-stream": "binary blob data",
	"pdf":          "pdf document",
	"csv":          "csv table data",
}

// kindText is the text of a resource's or prompt's kind field: its kind,
// the words of its mimeType and what they stand for.
func kindText(d Doc, ext string) string {
	words := []string{d.Kind}
	if d.Kind == KindTemplate {
		words = append(words, "resource")
	}
	if major, minor, ok := strings.Cut(d.MimeType, "/"); ok {
		minor, _, _ = strings.Cut(minor, ";")
		words = append(words, major, minor, mimeWords[minor])
	}
	if ext != "" {
		words = append(words, ext, mimeWords[ext])
	}
	return strings.Join(words, " ")
}
