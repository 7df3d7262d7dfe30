package toolsearch

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// rawResource is the subset of an MCP Resource or ResourceTemplate object
// the index reads.
type rawResource struct {
	URI         string                     `json:"uri"`
	URITemplate string                     `json:"uriTemplate"`
	Name        string                     `json:"name"`
	Title       string                     `json:"title"`
	Description string                     `json:"description"`
	MimeType    string                     `json:"mimeType"`
	Annotations map[string]json.RawMessage `json:"annotations"`
}

// rawPrompt is the subset of an MCP Prompt object the index reads.
type rawPrompt struct {
	Name        string `json:"name"`
	Title       string `json:"title"`
	Description string `json:"description"`
	Arguments   []struct {
		Name        string `json:"name"`
		Description string `json:"description"`
	} `json:"arguments"`
}

// DocFromResource turns a raw MCP Resource (as listed by resources/list)
// into a Doc of KindResource: name, title, description, mimeType; the URI's
// words are indexed as a parameter named "uri", so that a pasted URI finds
// it. A resource without a name is named by
// its URI.
func DocFromResource(connection string, raw json.RawMessage) (Doc, error) {
	var r rawResource
	if err := json.Unmarshal(raw, &r); err != nil {
		return Doc{}, fmt.Errorf("decode resource: %w", err)
	}
	if r.URI == "" {
		return Doc{}, errors.New("decode resource: missing uri")
	}
	return resourceDoc(connection, KindResource, r.URI, r), nil
}

// DocFromTemplate turns a raw MCP ResourceTemplate (as listed by
// resources/templates/list) into a Doc of KindTemplate; each {variable} of
// the template is also a parameter.
func DocFromTemplate(connection string, raw json.RawMessage) (Doc, error) {
	var r rawResource
	if err := json.Unmarshal(raw, &r); err != nil {
		return Doc{}, fmt.Errorf("decode resource template: %w", err)
	}
	if r.URITemplate == "" {
		return Doc{}, errors.New("decode resource template: missing uriTemplate")
	}
	d := resourceDoc(connection, KindTemplate, r.URITemplate, r)
	for _, v := range templateVariables(r.URITemplate) {
		d.Params = append(d.Params, Param{Name: v})
	}
	return d, nil
}

func resourceDoc(connection, kind, uri string, r rawResource) Doc {
	d := Doc{Connection: connection, Kind: kind, URI: uri, MimeType: r.MimeType,
		Name: r.Name, Title: r.Title, Description: r.Description}
	if d.Name == "" {
		d.Name = uri
	}
	d.Params = []Param{{Name: "uri", Description: uri}}
	return d
}

// maxTemplateVariables bounds the variables read from one uriTemplate, so a
// hostile template of a million braces costs the index nothing.
const maxTemplateVariables = 16

// templateVariables returns the variable names of an RFC 6570 template,
// operators and modifiers stripped ("{+path}", "{?q,page}", "{id*}").
func templateVariables(tmpl string) []string {
	var vars []string
	for len(vars) < maxTemplateVariables {
		open := strings.IndexByte(tmpl, '{')
		if open < 0 {
			break
		}
		end := strings.IndexByte(tmpl[open:], '}')
		if end < 0 {
			break
		}
		expr := strings.TrimLeft(tmpl[open+1:open+end], "+#./;?&=,!@|")
		for _, v := range strings.Split(expr, ",") {
			v = strings.TrimSuffix(v, "*")
			if i := strings.IndexByte(v, ':'); i >= 0 {
				v = v[:i]
			}
			if v != "" && len(vars) < maxTemplateVariables {
				vars = append(vars, v)
			}
		}
		tmpl = tmpl[open+end+1:]
	}
	return vars
}

// DocFromPrompt turns a raw MCP Prompt (as listed by prompts/list) into a
// Doc of KindPrompt: name, title, description, and its arguments as
// parameters.
func DocFromPrompt(connection string, raw json.RawMessage) (Doc, error) {
	var p rawPrompt
	if err := json.Unmarshal(raw, &p); err != nil {
		return Doc{}, fmt.Errorf("decode prompt: %w", err)
	}
	if p.Name == "" {
		return Doc{}, errors.New("decode prompt: missing name")
	}
	d := Doc{Connection: connection, Kind: KindPrompt, Name: p.Name, Title: p.Title, Description: p.Description}
	for _, a := range p.Arguments {
		if a.Name != "" {
			d.Params = append(d.Params, Param{Name: a.Name, Description: a.Description})
		}
	}
	return d, nil
}
