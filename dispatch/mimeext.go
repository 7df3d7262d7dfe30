package dispatch

import (
	"regexp"
	"strings"
	"sync"
)

// knownExtensions maps the MIME types servers commonly send to the
// extension a saved blob gets. A fixed table, not the system's MIME
// database: the same blob gets the same name on every machine.
var knownExtensions = map[string]string{
	"application/gzip":         ".gz",
	"application/json":         ".json",
	"application/octet-stream": ".bin",
	"application/pdf":          ".pdf",
	"application/zip":          ".zip",
	"application/x-tar":        ".tar",
	"application/xml":          ".xml",
	"audio/mpeg":               ".mp3",
	"audio/ogg":                ".ogg",
	"audio/wav":                ".wav",
	"audio/x-wav":              ".wav",
	"image/gif":                ".gif",
	"image/jpeg":               ".jpg",
	"image/png":                ".png",
	"image/svg+xml":            ".svg",
	"image/webp":               ".webp",
	"text/csv":                 ".csv",
	"text/html":                ".html",
	"text/markdown":            ".md",
	"text/plain":               ".txt",
	"video/mp4":                ".mp4",
}

var extWord = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9]{1,10}$`) })

// extensionFor returns the file extension for a MIME type: from the table,
// else the subtype when it is a plain word ("audio/flac" → ".flac"), else
// ".bin". Whatever a server sends, the result is a dot and a short word.
func extensionFor(mimeType string) string {
	base, _, _ := strings.Cut(strings.ToLower(strings.TrimSpace(mimeType)), ";")
	base = strings.TrimSpace(base)
	if ext, ok := knownExtensions[base]; ok {
		return ext
	}
	if strings.HasSuffix(base, "+json") {
		return ".json"
	}
	_, sub, _ := strings.Cut(base, "/")
	sub = strings.TrimPrefix(sub, "x-")
	if extWord().MatchString(sub) {
		return "." + sub
	}
	return ".bin"
}

// isJSONType reports whether a MIME type says its text is JSON
// (application/json, or any +json type such as application/ld+json).
func isJSONType(mimeType string) bool {
	base, _, _ := strings.Cut(strings.ToLower(strings.TrimSpace(mimeType)), ";")
	base = strings.TrimSpace(base)
	return base == "application/json" || strings.HasSuffix(base, "+json")
}
